//go:build unix

package handlers

import (
	"os"
	"syscall"
)

// inode identifies a file across renames over it, for the hash cache.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
