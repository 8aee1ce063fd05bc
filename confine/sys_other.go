//go:build !unix && !windows

package confine

import (
	"io/fs"
	"os"
)

// ReplacesOpenFiles: a rename may replace a file that is open.
const ReplacesOpenFiles = true

const (
	openReadFlags       = os.O_RDONLY
	openWriteProbeFlags = os.O_WRONLY
)

func isReadOnlyFS(err error) bool           { return false }
func links(fi fs.FileInfo) uint64           { return 1 }
func ownerOf(fi fs.FileInfo) string         { return "unknown" }
func keepOwner(*os.File, fs.FileInfo) error { return nil }

// Without flock(2), temp files are never taken for abandoned.
func lockTemp(*os.File) error               { return nil }
func removeAbandoned(*dir, string)          {}
func stat(f *os.File) (fs.FileInfo, error)  { return f.Stat() }
func lockFolder(*os.File, bool) func()      { return func() {} }
func tryLockFolder(*os.File) (func(), bool) { return func() {}, true }
