package store

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestNoReopenAfterClose: a database closed is never opened again. The
// write-behind loop notices a deleted database file and reopens it
// (Reopen); a loop still finishing its last flush when the process closes
// the database, and the state folder is removed, must not make the file
// again (a test's cleanup found the folder "not empty").
func TestNoReopenAfterClose(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if !db.Replaced() {
		t.Fatal("a removed database file is not reported replaced")
	}
	if err := db.Reopen(); err == nil {
		t.Fatal("Reopen after Close succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Fatalf("the database file was made again after Close: %v", err)
	}
}

// TestWatchAfterReopen: the watching connection's prepared statements are
// left with the connection a Reopen closes; the next watch prepares its
// own, and does not close the old ones again (the driver crashed on that).
func TestWatchAfterReopen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be removed on Windows: the database is never deleted under a process there")
	}
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	m, err := db.MarkNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.EntriesSince(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	if err := db.Reopen(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.EntriesSince(ctx, Mark{}); err != nil {
		t.Fatalf("watching after a reopen: %v", err)
	}
}
