package swaptest

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Start exchanges a and b (a folder and a symbolic link, both in dir) with
// renameat2(RENAME_EXCHANGE) until stop is called, which returns how many
// swaps were made and leaves the folder under its own name. A swap that
// fails fails the test: a race without swaps proves nothing. Stop also
// fails the test when no swap happened at all.
func Start(tb testing.TB, dir, a, b string) (stop func() int64) {
	tb.Helper()
	d, err := os.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	fd := int(d.Fd())
	var done atomic.Bool
	var swaps atomic.Int64
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for !done.Load() {
			if err := unix.Renameat2(fd, a, fd, b, unix.RENAME_EXCHANGE); err != nil {
				tb.Errorf("renameat2(RENAME_EXCHANGE) of %s and %s: %v", a, b, err)
				return
			}
			swaps.Add(1)
		}
	}()
	return func() int64 {
		tb.Helper()
		done.Store(true)
		<-finished
		if fi, err := os.Lstat(filepath.Join(dir, a)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			unix.Renameat2(fd, a, fd, b, unix.RENAME_EXCHANGE)
		}
		d.Close()
		n := swaps.Load()
		if n == 0 {
			tb.Errorf("no swap of %s and %s happened: the race tested nothing", a, b)
		}
		return n
	}
}
