// Package pathlock serialises writers of one file across processes: the CLI,
// every language server and any other sightline process of the same user
// take an exclusive flock(2) on a lock file named after the file's real path,
// in sightline's state folder (never in the user's tree), for as long as a
// write checks the file's bytes and replaces it.
package pathlock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrTimeout is returned when another writer held the lock for the whole
// wait.
var ErrTimeout = errors.New("another sightline process is writing this file")

// Locks is a folder of lock files. The zero value is not usable; make one
// with New.
type Locks struct{ dir string }

// New returns the locks kept in dir (created on first use, 0700).
func New(dir string) *Locks { return &Locks{dir: dir} }

// Dir is the folder of the lock files.
func (l *Locks) Dir() string { return l.dir }

// File returns the lock file of a real path. Lock files are never removed:
// removing one while another process waits on it would let two writers in.
func (l *Locks) File(realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	return filepath.Join(l.dir, hex.EncodeToString(sum[:16])+".lock")
}

// Lock takes the exclusive lock of realPath (an absolute path with symlinks
// resolved, so every spelling of one file shares one lock), waiting at most
// wait. Separate calls conflict even within one process (each has its own
// open file description), so goroutines are serialised too. The returned
// release must be called once.
func (l *Locks) Lock(ctx context.Context, realPath string, wait time.Duration) (release func(), err error) {
	return l.lock(ctx, realPath, wait, false)
}

// LockShared takes the shared lock of name: holders of it do not wait for
// each other, and exclude (and wait for) a holder of Lock. A gate: many
// doers share it, and one that must see none of them under way takes it
// exclusively.
func (l *Locks) LockShared(ctx context.Context, name string, wait time.Duration) (release func(), err error) {
	return l.lock(ctx, name, wait, true)
}

func (l *Locks) lock(ctx context.Context, realPath string, wait time.Duration, shared bool) (release func(), err error) {
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock folder: %w", err)
	}
	name := l.File(realPath)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		ok, err := tryLock(f, shared)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", name, err)
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (waited %v on %s)", ErrTimeout, wait, name)
		}
		// Polling, not a blocking flock: the wait stays bounded and
		// cancellable. Writers hold the lock for milliseconds.
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
		pause = min(2*pause, 20*time.Millisecond)
	}
}
