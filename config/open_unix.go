//go:build unix

package config

import (
	"os"
	"syscall"
)

// openFile opens a configuration file for reading. noFollow refuses a
// symbolic link at its name (ELOOP); O_NONBLOCK keeps a FIFO put in its
// place from hanging the call (the caller then refuses what is not a
// regular file).
func openFile(path string, noFollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flags, 0)
}
