//go:build !unix && !windows

package pathlock

import "os"

// Without flock(2) the lock file's existence is not a lock; writers of one
// process are still serialised by the caller. sightline's cross-process
// guarantee is for Unix.
func tryLock(f *os.File, shared bool) (bool, error) { return true, nil }

func unlock(f *os.File) {}
