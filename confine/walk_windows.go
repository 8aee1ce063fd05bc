//go:build windows

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// As on Unix, a checked path (Target.Rel) has no link in it, so every later
// operation reaches it from the root's handle one name at a time, each
// opened relative to the last (NtCreateFile with a root directory) with
// FILE_OPEN_REPARSE_POINT: a symbolic link or junction met on the way, a
// swap since the check, fails the operation instead of being followed.
// Every handle shares read, write and delete access, so a file sightline
// holds open can still be renamed over or removed, by it or by another
// program. Renames and removals act on a handle of the entry itself, with
// POSIX semantics where the file system has them (the name is replaced or
// gone at once, even while others hold the file open).

// shareAll is every handle's share mode.
const shareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// Handle rights for a folder on the way: enough to open, list and stat
// what is in it.
const dirAccess = windows.FILE_LIST_DIRECTORY | windows.FILE_TRAVERSE | windows.FILE_READ_ATTRIBUTES | windows.SYNCHRONIZE

// base is the root folder's handle, from which every walk starts.
type base struct{ d *dir }

func openBase(path string) (*base, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, dirAccess, shareAll, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &base{d: &dir{f: os.NewFile(uintptr(h), path), rel: "."}}, nil
}

func (b *base) close() error { return b.d.close() }

// dir is an open folder of the workspace, reached without following links.
type dir struct {
	f   *os.File
	rel string
}

func (d *dir) h() windows.Handle { return windows.Handle(d.f.Fd()) }
func (d *dir) close() error      { return d.f.Close() }

// errLink is a walk's answer to a symbolic link or junction where the
// check saw none.
var errLink = errors.New("a symbolic link or junction is in the way")

func swapped(err error) bool {
	return errors.Is(err, errLink) || errors.Is(err, syscall.ENOTDIR)
}

// ntOpen opens name relative to the folder handle parent ("": the folder
// itself), never through a link: a name surrogate (symbolic link,
// junction) there is errLink. Other reparse points (cloud placeholders,
// deduplicated files) are opened as the file system presents them, and
// must be the file first found under the name.
func ntOpen(parent windows.Handle, name string, access, disposition, options, attrs uint32) (windows.Handle, error) {
	h, err := ntCreate(parent, name, access, disposition, options|windows.FILE_OPEN_REPARSE_POINT, attrs)
	if err != nil {
		return h, err
	}
	var bi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &bi); err != nil {
		windows.CloseHandle(h)
		return windows.InvalidHandle, err
	}
	if bi.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT == 0 {
		return h, nil
	}
	var tag struct{ attrs, tag uint32 }
	err = windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&tag)), uint32(unsafe.Sizeof(tag)))
	windows.CloseHandle(h)
	if err != nil {
		return windows.InvalidHandle, err
	}
	if tag.tag&0x20000000 != 0 { // a name surrogate: it names another file
		return windows.InvalidHandle, errLink
	}
	h, err = ntCreate(parent, name, access, windows.FILE_OPEN, options, attrs)
	if err != nil {
		return h, err
	}
	var again windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &again); err != nil || again.VolumeSerialNumber != bi.VolumeSerialNumber ||
		again.FileIndexHigh != bi.FileIndexHigh || again.FileIndexLow != bi.FileIndexLow {
		windows.CloseHandle(h)
		return windows.InvalidHandle, errLink
	}
	return h, nil
}

func ntCreate(parent windows.Handle, name string, access, disposition, options, attrs uint32) (windows.Handle, error) {
	return ntCreateShare(parent, name, access, shareAll, disposition, options, attrs)
}

func ntCreateShare(parent windows.Handle, name string, access, share, disposition, options, attrs uint32) (windows.Handle, error) {
	u, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return windows.InvalidHandle, err
	}
	oa := windows.OBJECT_ATTRIBUTES{RootDirectory: parent, ObjectName: u, Attributes: windows.OBJ_CASE_INSENSITIVE}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	err = windows.NtCreateFile(&h, access|windows.SYNCHRONIZE|windows.FILE_READ_ATTRIBUTES, &oa, &windows.IO_STATUS_BLOCK{}, nil,
		attrs, share, disposition, options|windows.FILE_SYNCHRONOUS_IO_NONALERT|windows.FILE_OPEN_FOR_BACKUP_INTENT, 0, 0)
	if err != nil {
		return windows.InvalidHandle, ntError(err)
	}
	return h, nil
}

// ntError turns an NT status into the error os would give for it.
func ntError(err error) error {
	st, ok := err.(windows.NTStatus)
	if !ok {
		return err
	}
	switch st {
	case windows.STATUS_NOT_A_DIRECTORY:
		return syscall.ENOTDIR
	case windows.STATUS_FILE_IS_A_DIRECTORY:
		return syscall.EISDIR
	case windows.STATUS_OBJECT_NAME_COLLISION:
		return syscall.ERROR_FILE_EXISTS
	}
	return st.Errno()
}

// openDir opens the folder rel (checked: no links) of the root. The root's
// handle is held for the walk (RawConn.Control): a Close meanwhile takes
// effect when it ends; after Close the walk fails (errRootClosed).
func (r *Root) openDir(rel string) (d *dir, err error) {
	rc, err := r.base.d.f.SyscallConn()
	if err != nil {
		return nil, errRootClosed
	}
	if cerr := rc.Control(func(uintptr) { d, err = r.openDirFrom(rel) }); cerr != nil {
		return nil, errRootClosed
	}
	return d, err
}

func (r *Root) openDirFrom(rel string) (*dir, error) {
	cur := r.base.d
	for _, p := range split(filepath.Clean(rel)) {
		if p == "." {
			continue
		}
		next, err := cur.sub(p)
		if cur != r.base.d {
			cur.close()
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: rel, Err: errors.Unwrap(err)}
		}
		cur = next
	}
	if cur == r.base.d { // the root itself: a handle of its own
		h, err := ntOpen(cur.h(), "", dirAccess, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
		}
		return &dir{f: os.NewFile(uintptr(h), r.dir), rel: "."}, nil
	}
	cur.rel = filepath.Clean(rel)
	return cur, nil
}

// openFile opens the file rel (checked: no links) of the root.
func (r *Root) openFile(rel string, flags int) (*os.File, error) {
	d, err := r.openDir(filepath.Dir(rel))
	if err != nil {
		return nil, err
	}
	defer d.close()
	return d.open(filepath.Base(rel), flags, 0)
}

// open opens the file name of the folder, never through a link; with
// O_CREATE|O_EXCL it makes it (read-only if perm has no write bit).
func (d *dir) open(name string, flags int, perm fs.FileMode) (*os.File, error) {
	var access uint32
	options := uint32(windows.FILE_NON_DIRECTORY_FILE)
	switch flags & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access, options = windows.FILE_GENERIC_READ, 0 // a folder may be opened to be read (listed)
	case os.O_WRONLY:
		access = windows.FILE_GENERIC_WRITE
	default:
		access = windows.FILE_GENERIC_READ | windows.FILE_GENERIC_WRITE
	}
	disposition, attrs := uint32(windows.FILE_OPEN), uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if flags&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL {
		disposition = windows.FILE_CREATE
		if perm&0o200 == 0 {
			attrs = windows.FILE_ATTRIBUTE_READONLY
		}
	}
	h, err := ntOpen(d.h(), name, access, disposition, options, attrs)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// info is the state of the entry name (a link itself, not its target).
func (d *dir) info(name string) (windows.ByHandleFileInformation, int64, error) {
	var bi windows.ByHandleFileInformation
	h, err := ntCreate(d.h(), name, 0, windows.FILE_OPEN, windows.FILE_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return bi, 0, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	defer windows.CloseHandle(h)
	ctime, err := handleInfo(h, &bi)
	if err != nil {
		return bi, 0, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return bi, ctime, nil
}

func (d *dir) statID(name string) (statID, error) {
	bi, ctime, err := d.info(name)
	if err != nil {
		return statID{}, err
	}
	return idOf(&bi, ctime), nil
}

// same reports whether name is still the file fi (from this package)
// describes.
func (d *dir) same(name string, fi fs.FileInfo) bool {
	want := statIDOf(fi)
	now, err := d.statID(name)
	return err == nil && want.ok && now.dev == want.dev && now.ino == want.ino
}

func (d *dir) exists(name string) (bool, error) {
	_, _, err := d.info(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// remove removes the entry name itself (a link, never its target), or an
// empty folder; rmdir only a folder.
func (d *dir) remove(name string) error { return d.delete(name, 0) }
func (d *dir) rmdir(name string) error  { return d.delete(name, windows.FILE_DIRECTORY_FILE) }

func (d *dir) delete(name string, options uint32) error {
	h, err := ntCreate(d.h(), name, windows.DELETE, windows.FILE_OPEN, options|windows.FILE_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	defer windows.CloseHandle(h)
	if err := deleteHandle(h); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return nil
}

// deleteHandle marks the file of h deleted: with POSIX semantics (the name
// is gone at once, even while others hold the file open) where the system
// has them, else the name goes when the last handle closes.
func deleteHandle(h windows.Handle) error {
	const (
		fileDispositionInformation   = 13
		fileDispositionInformationEx = 64
		delete, posix                = 0x1, 0x2
	)
	flags := uint32(delete | posix)
	err := windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, (*byte)(unsafe.Pointer(&flags)), 4, fileDispositionInformationEx)
	if unsupported(err) {
		yes := uint8(1)
		err = windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, &yes, 1, fileDispositionInformation)
	}
	if err != nil {
		return ntError(err)
	}
	return nil
}

// unsupported reports an answer meaning the system or file system lacks an
// information class or one of its flags: the older form is tried.
func unsupported(err error) bool {
	switch err {
	case windows.STATUS_INVALID_INFO_CLASS, windows.STATUS_NOT_IMPLEMENTED, windows.STATUS_INVALID_PARAMETER, windows.STATUS_NOT_SUPPORTED:
		return true
	}
	return false
}

func (d *dir) mkdir(name string, perm fs.FileMode) error {
	h, err := ntCreate(d.h(), name, dirAccess, windows.FILE_CREATE, windows.FILE_DIRECTORY_FILE, windows.FILE_ATTRIBUTE_NORMAL)
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	windows.CloseHandle(h)
	return nil
}

// sub opens the folder name of d, never through a link.
func (d *dir) sub(name string) (*dir, error) {
	h, err := ntOpen(d.h(), name, dirAccess, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &dir{f: os.NewFile(uintptr(h), name), rel: filepath.Join(d.rel, name)}, nil
}

// nameInfo is FILE_RENAME_INFORMATION(_EX) and FILE_LINK_INFORMATION: a
// flags word (whose first byte is the older forms' ReplaceIfExists), the
// folder the new name is relative to, and the name.
func nameInfo(flags uint32, dir windows.Handle, name string) ([]byte, error) {
	u, err := windows.UTF16FromString(name)
	if err != nil {
		return nil, err
	}
	u = u[:len(u)-1]
	type head struct {
		flags  uint32
		root   windows.Handle
		length uint32
	}
	off := unsafe.Offsetof(head{}.length) + 4
	buf := make([]byte, off+uintptr(len(u))*2+2)
	h := (*head)(unsafe.Pointer(&buf[0]))
	h.flags, h.root, h.length = flags, dir, uint32(len(u)*2)
	copy(unsafe.Slice((*uint16)(unsafe.Pointer(&buf[off])), len(u)), u)
	return buf, nil
}

// link gives the file old of the folder a second name, new; it fails if new
// exists.
func (d *dir) link(old, new string) error {
	const fileLinkInformation = 11
	h, err := ntCreate(d.h(), old, windows.FILE_WRITE_ATTRIBUTES, windows.FILE_OPEN, windows.FILE_OPEN_REPARSE_POINT|windows.FILE_NON_DIRECTORY_FILE, 0)
	if err == nil {
		defer windows.CloseHandle(h)
		var info []byte
		if info, err = nameInfo(0, d.h(), new); err == nil {
			err = ntError(windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, &info[0], uint32(len(info)), fileLinkInformation))
		}
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: old, New: new, Err: err}
	}
	return nil
}

// rename moves the entry old of d (a link itself, if it is one) to new in
// the folder to, replacing what is there: with POSIX semantics where the
// file system has them (the replaced file may be open elsewhere), else as
// MoveFileEx(MOVEFILE_REPLACE_EXISTING) does, which a file open elsewhere
// refuses (errOpenElsewhere). Then the moved file is flushed, as
// MOVEFILE_WRITE_THROUGH asks.
func (d *dir) rename(old string, to *dir, new string) error {
	const (
		fileRenameInformation   = 10
		fileRenameInformationEx = 65
		replace, posix          = 0x1, 0x2
	)
	fail := func(err error) error { return &os.LinkError{Op: "rename", Old: old, New: new, Err: err} }
	access := uint32(windows.DELETE | windows.FILE_WRITE_DATA)
	h, err := ntCreate(d.h(), old, access, windows.FILE_OPEN, windows.FILE_OPEN_REPARSE_POINT|windows.FILE_WRITE_THROUGH, 0)
	if errors.Is(err, fs.ErrPermission) { // a read-only file or a folder: moved, not flushed
		h, err = ntCreate(d.h(), old, windows.DELETE, windows.FILE_OPEN, windows.FILE_OPEN_REPARSE_POINT, 0)
	}
	if err != nil {
		return fail(err)
	}
	defer windows.CloseHandle(h)
	info, err := nameInfo(replace|posix, to.h(), new)
	if err != nil {
		return fail(err)
	}
	err = windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, &info[0], uint32(len(info)), fileRenameInformationEx)
	if unsupported(err) {
		info[0] = replace
		err = windows.NtSetInformationFile(h, &windows.IO_STATUS_BLOCK{}, &info[0], uint32(len(info)), fileRenameInformation)
		if err == windows.STATUS_ACCESS_DENIED { // what the older form answers for a replaced file that is open
			err = windows.STATUS_SHARING_VIOLATION
		}
	}
	if err == windows.STATUS_SHARING_VIOLATION {
		if there, _ := to.exists(new); there {
			return fail(errOpenElsewhere)
		}
	}
	if err != nil {
		return fail(ntError(err))
	}
	_ = windows.FlushFileBuffers(h) // best effort: a handle without write access cannot
	return nil
}

// names lists the folder, through a handle of its own (listing moves it).
func (d *dir) names() ([]string, error) {
	h, err := ntOpen(d.h(), "", dirAccess, windows.FILE_OPEN, windows.FILE_DIRECTORY_FILE, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.rel, Err: err}
	}
	f := os.NewFile(uintptr(h), d.rel)
	defer f.Close()
	return f.Readdirnames(-1)
}
