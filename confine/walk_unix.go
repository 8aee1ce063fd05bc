//go:build unix

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// A checked path (Target.Rel) has no symbolic link in it, so every later
// operation reaches it from the root's descriptor following none: a folder
// swapped for a link since the check makes the operation fail (ELOOP,
// ENOTDIR) instead of leading it elsewhere. Where the kernel has openat2,
// one call walks the path with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS;
// elsewhere each folder is opened from the last with O_NOFOLLOW. The last
// step (open, stat, link, rename, unlink, mkdir) is made relative to the
// folder's descriptor and never follows a link either.

// base is the root folder's descriptor, from which every walk starts.
type base struct {
	f         *os.File
	noOpenat2 atomic.Bool // set once openat2 is found missing or filtered
}

func openBase(dir string) (*base, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &base{f: os.NewFile(uintptr(fd), dir)}, nil
}

func (b *base) close() error { return b.f.Close() }

// dir is an open folder of the workspace, reached without following links.
type dir struct {
	f   *os.File // also what is fsynced after a rename and flocked for temp bookkeeping
	rel string
}

func (d *dir) fd() int      { return int(d.f.Fd()) }
func (d *dir) close() error { return d.f.Close() }

// errNoOpenat2 says openat2 cannot be used here: walk folder by folder.
var errNoOpenat2 = errors.New("openat2 unavailable")

// walkFlags open a folder on the way: a descriptor good for *at calls,
// fsync and flock, that is never a link.
const walkFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// openDir opens the folder rel (checked: no links) of the root.
func (r *Root) openDir(rel string) (*dir, error) {
	fd, err := r.walk(rel, walkFlags, 0)
	if err != nil {
		return nil, err
	}
	return &dir{f: os.NewFile(uintptr(fd), rel), rel: rel}, nil
}

// walk opens rel from the root with flags, following no link on the way or
// at the end. The root's descriptor is held for the walk (RawConn.Control):
// a Close meanwhile takes effect when it ends, so its number is never
// reused under the walk; after Close the walk fails (errRootClosed).
func (r *Root) walk(rel string, flags int, mode uint32) (fd int, err error) {
	rc, err := r.base.f.SyscallConn()
	if err != nil {
		return -1, errRootClosed
	}
	if cerr := rc.Control(func(top uintptr) { fd, err = r.walkFrom(int(top), rel, flags, mode) }); cerr != nil {
		return -1, errRootClosed
	}
	return fd, err
}

func (r *Root) walkFrom(top int, rel string, flags int, mode uint32) (int, error) {
	rel = filepath.Clean(rel)
	if !r.base.noOpenat2.Load() {
		fd, err := openBeneath(top, rel, flags, mode)
		if !errors.Is(err, errNoOpenat2) {
			if err != nil {
				return -1, &fs.PathError{Op: "openat2", Path: rel, Err: err}
			}
			return fd, nil
		}
		r.base.noOpenat2.Store(true)
	}
	cur := top
	parts := split(rel)
	for i, p := range parts {
		if p == "." {
			continue
		}
		fl, m := walkFlags, uint32(0)
		if i == len(parts)-1 {
			fl, m = flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode
		}
		fd, err := openat(cur, p, fl, m)
		if cur != top {
			unix.Close(cur)
		}
		if err != nil {
			return -1, &fs.PathError{Op: "openat", Path: rel, Err: err}
		}
		cur = fd
	}
	if cur == top { // rel is the root itself
		return openat(cur, ".", flags|unix.O_CLOEXEC, mode)
	}
	return cur, nil
}

func openat(dirfd int, name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, mode)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// open opens the file name of the folder, never through a link.
func (d *dir) open(name string, flags int, perm fs.FileMode) (*os.File, error) {
	fd, err := openat(d.fd(), name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// statID is the state of the entry name (a link itself, not its target).
func (d *dir) statID(name string) (statID, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return statID{}, &fs.PathError{Op: "fstatat", Path: name, Err: err}
	}
	id := statID{size: st.Size, mtime: st.Mtim.Nano()}
	if runtime.GOOS == "linux" { // as statIDOf: the change time where the platform gives it
		id.dev, id.ino, id.ctime, id.ok = uint64(st.Dev), uint64(st.Ino), st.Ctim.Nano(), true
	}
	return id, nil
}

// same reports whether name is still the file fi describes.
func (d *dir) same(name string, fi fs.FileInfo) bool {
	var st unix.Stat_t
	want, ok := fi.Sys().(*syscall.Stat_t)
	return ok && unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		uint64(st.Dev) == uint64(want.Dev) && uint64(st.Ino) == uint64(want.Ino)
}

// exists reports whether the folder has an entry name (a dangling link
// counts).
func (d *dir) exists(name string) (bool, error) {
	var st unix.Stat_t
	err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == unix.ENOENT {
		return false, nil
	}
	if err != nil {
		return false, &fs.PathError{Op: "fstatat", Path: name, Err: err}
	}
	return true, nil
}

// remove unlinks the entry name itself (a link, never its target), or
// removes it if it is an empty folder.
func (d *dir) remove(name string) error {
	err := unix.Unlinkat(d.fd(), name, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		if err2 := unix.Unlinkat(d.fd(), name, unix.AT_REMOVEDIR); err2 == nil || err2 != unix.ENOTDIR {
			err = err2
		}
	}
	if err != nil {
		return &fs.PathError{Op: "unlinkat", Path: name, Err: err}
	}
	return nil
}

// mkdir makes the folder name; the umask applies to perm.
func (d *dir) mkdir(name string, perm fs.FileMode) error {
	if err := unix.Mkdirat(d.fd(), name, uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "mkdirat", Path: name, Err: err}
	}
	return nil
}

// sub opens the folder name of d, never through a link.
func (d *dir) sub(name string) (*dir, error) {
	fd, err := openat(d.fd(), name, walkFlags, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return &dir{f: os.NewFile(uintptr(fd), name), rel: filepath.Join(d.rel, name)}, nil
}

// link gives the file old of the folder a second name, new; it fails if new
// exists.
func (d *dir) link(old, new string) error {
	if err := unix.Linkat(d.fd(), old, d.fd(), new, 0); err != nil {
		return &os.LinkError{Op: "linkat", Old: old, New: new, Err: err}
	}
	return nil
}

// rename moves the entry old of d (a link itself, if it is one) to new in
// the folder to.
func (d *dir) rename(old string, to *dir, new string) error {
	if err := unix.Renameat(d.fd(), old, to.fd(), new); err != nil {
		return &os.LinkError{Op: "renameat", Old: old, New: new, Err: err}
	}
	return nil
}

// names lists the folder (through a descriptor of its own: reading moves
// the offset).
func (d *dir) names() ([]string, error) {
	f, err := d.open(".", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// swapped reports an error of a walk that met a link or a file where the
// check saw a folder or a file: the path changed since it was checked.
func swapped(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR)
}

// rmdir removes the empty folder name.
func (d *dir) rmdir(name string) error {
	if err := unix.Unlinkat(d.fd(), name, unix.AT_REMOVEDIR); err != nil {
		return &fs.PathError{Op: "rmdir", Path: name, Err: err}
	}
	return nil
}

// openFile opens the file rel (checked: no links) of the root, following
// no link on the way or at the end.
func (r *Root) openFile(rel string, flags int) (*os.File, error) {
	fd, err := r.walk(rel, flags, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), rel), nil
}
