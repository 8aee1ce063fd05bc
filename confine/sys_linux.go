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
