//go:build !unix

package handlers

import "os"

// inode is unknown here: the hash cache relies on size and time alone.
func inode(os.FileInfo) uint64 { return 0 }
