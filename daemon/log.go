package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// LogName is the daemon's log in its workspace's state folder: its start,
// its exit and why, the callers it refused, its errors. A daemon runs
// detached, with no terminal: this file is where a user sees what it did.
const LogName = "daemon.log"

// LogLimit bounds the log: past it, the log becomes LogName+".1" (the one
// older file kept) and a new one begins, so a daemon that lives for weeks
// keeps at most twice this on disk.
const LogLimit = 1 << 20

// LogPath is the log of the daemon whose state folder is state.
func LogPath(state string) string { return filepath.Join(state, LogName) }

// Log is a log file bounded by rotation (LogLimit). It is safe for
// concurrent use.
type Log struct {
	path  string
	limit int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenLog opens (appends to) the log at path, rotated past limit bytes
// (0: LogLimit).
func OpenLog(path string, limit int64) (*Log, error) {
	if limit <= 0 {
		limit = LogLimit
	}
	l := &Log{path: path, limit: limit}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("daemon log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("daemon log: %w", err)
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// Write appends p, first moving a full log aside.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.limit {
		_ = l.f.Close()
		l.f = nil
		// The older file is replaced: one old file is kept.
		if err := os.Rename(l.path, l.path+".1"); err != nil && !os.IsNotExist(err) {
			return 0, fmt.Errorf("daemon log: rotate: %w", err)
		}
		if err := l.open(); err != nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// Sync flushes the file (zap calls it on errors and at exit).
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return l.f.Sync()
}

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
