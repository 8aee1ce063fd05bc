//go:build unix

package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ReplacesOpenFiles: a rename may replace a file that is open.
const ReplacesOpenFiles = true

// Reads never block on a FIFO; the write probe opens without truncating.
const (
	openReadFlags       = os.O_RDONLY | syscall.O_NONBLOCK
	openWriteProbeFlags = os.O_WRONLY | syscall.O_NONBLOCK
)

func isReadOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func ownerOf(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("uid %d, gid %d", st.Uid, st.Gid)
	}
	return "unknown"
}

// keepOwner gives the temp file tf the owner and group of the original fi,
// when they differ from what the temp file got.
func keepOwner(tf *os.File, fi fs.FileInfo) error {
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	got, err := tf.Stat()
	if err != nil {
		return err
	}
	if have, ok := got.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	return tf.Chown(int(want.Uid), int(want.Gid))
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func stat(f *os.File) (fs.FileInfo, error) { return f.Stat() }

// removeAbandoned removes the temp file name if its writer is gone (see
// abandoned) and it is still the file found.
func removeAbandoned(d *dir, name string) {
	tf, err := d.open(name, openReadFlags, 0)
	if err != nil {
		return
	}
	defer tf.Close()
	if abandoned(tf) {
		if a, err := tf.Stat(); err == nil && d.same(name, a) {
			d.remove(name)
		}
	}
}

// lockTemp marks a temp file as in use by a live writer until it is closed.
func lockTemp(f *os.File) error { return flock(f, unix.LOCK_EX|unix.LOCK_NB) }

// abandoned reports whether a temp file's writer is gone: nobody holds its
// lock (the kernel drops a dead process's locks).
func abandoned(f *os.File) bool { return flock(f, unix.LOCK_EX|unix.LOCK_NB) == nil }

// lockFolder takes the folder's shared lock for making a temp file. The
// cleaner holds it exclusively for a scan (milliseconds); should that take
// long, the writer goes on without it: the worst case is a cleaner removing
// a temp file a moment old, and that write fails cleanly.
func lockFolder(d *os.File, exclusive bool) func() {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	deadline := time.Now().Add(time.Second)
	for flock(d, how|unix.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			return func() {}
		}
		time.Sleep(time.Millisecond)
	}
	return func() { _ = flock(d, unix.LOCK_UN) }
}

// tryLockFolder takes the folder's exclusive lock without waiting.
func tryLockFolder(d *os.File) (func(), bool) {
	if flock(d, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return nil, false
	}
	return func() { _ = flock(d, unix.LOCK_UN) }, true
}
