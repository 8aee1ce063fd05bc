package confine

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func statIDOf(fi fs.FileInfo) statID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	}
	return statID{dev: st.Dev, ino: st.Ino, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: st.Ctim.Nano(), ok: true}
}

// startWriteback asks the kernel to start writing a range of f to disk
// without waiting for it (best effort: the fsync after is what counts).
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// openBeneath opens rel under the folder dirfd in one call, following no
// symbolic link and never leaving the folder (openat2, Linux 5.6).
func openBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{
		Flags:   uint64(flags | unix.O_CLOEXEC),
		Mode:    uint64(mode),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for try := 0; ; try++ {
		fd, err := unix.Openat2(dirfd, rel, &how)
		switch {
		case err == unix.EINTR, err == unix.EAGAIN && try < 64: // EAGAIN: a rename raced the lookup; the kernel asks to retry
			continue
		case err == unix.ENOSYS, err == unix.EPERM, err == unix.E2BIG:
			// Missing (before 5.6), filtered by a seccomp profile, or
			// without these flags: the per-folder walk does the same.
			return -1, errNoOpenat2
		}
		return fd, err
	}
}
