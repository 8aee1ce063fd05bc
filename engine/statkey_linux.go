package engine

import (
	"io/fs"
	"syscall"
)

// statOf returns what identifies a file's bytes: size, modification and
// change times, inode.
func statOf(fi fs.FileInfo) (size, mtimeNs int64, ino uint64, ctimeNs int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, 0, false
	}
	return fi.Size(), fi.ModTime().UnixNano(), st.Ino, st.Ctim.Nano(), true
}
