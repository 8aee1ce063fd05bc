//go:build unix

package bridge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// sharedBase is the short folder of last resort, in the shared /tmp: one per
// user, which ownerOnly checks is ours.
func sharedBase() string {
	return filepath.Join("/tmp", "sightline-"+strconv.Itoa(os.Getuid()))
}

// ownerOnly checks that dir belongs to this user and narrows it to 0700.
func ownerOnly(dir string, fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("bridge: %s belongs to another user", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("bridge: %s is open to others: %w", dir, err)
		}
	}
	return nil
}

// restrictSocket makes the socket file owner-only too, in case the folder's
// mode is ever widened.
func restrictSocket(path string) error {
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("bridge: chmod socket: %w", err)
	}
	return nil
}

// refused reports whether a dial error means nobody listens: the socket is
// a leftover of a server that was killed.
func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}
