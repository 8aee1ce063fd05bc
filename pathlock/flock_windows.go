package pathlock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes an exclusive (or shared) LockFileEx lock of the lock file's
// first byte without waiting. Like flock(2), the lock belongs to the open handle: two
// handles conflict even within one process, and the system releases it
// when the process dies.
func tryLock(f *os.File, shared bool) (bool, error) {
	var how uint32 = windows.LOCKFILE_EXCLUSIVE_LOCK
	if shared {
		how = 0
	}
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), how|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	default:
		return false, err
	}
}

func unlock(f *os.File) {
	var ol windows.Overlapped
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
