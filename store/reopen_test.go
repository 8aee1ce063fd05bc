package store

import (
	"os"
	"path/filepath"
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
