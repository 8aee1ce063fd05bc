//go:build !linux

package engine

import "io/fs"

// statOf has no change time to go on here: ReadDisk falls back to Read.
func statOf(fi fs.FileInfo) (size, mtimeNs int64, ino uint64, ctimeNs int64, ok bool) {
	return 0, 0, 0, 0, false
}
