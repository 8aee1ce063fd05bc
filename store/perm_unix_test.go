//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The database keeps file texts (a .env among them): in a shared state
// folder (SIGHTLINE_STATE_DIR), it and its -wal and -shm files are the
// user's alone, whatever the umask; a folder sightline makes is too.
func TestDatabaseIsPrivate(t *testing.T) {
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	db := openTest(t, shared)
	if err := db.PutEntries(context.Background(), []Entry{entry("s", "file:///a", 1)}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		fi, err := os.Stat(filepath.Join(shared, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want -rw-------", name, fi.Mode().Perm())
		}
	}
	// An older database readable by others is made private when opened.
	old := t.TempDir()
	openTest(t, old).Close()
	os.Chmod(filepath.Join(old, FileName), 0o644)
	openTest(t, old)
	if fi, _ := os.Stat(filepath.Join(old, FileName)); fi.Mode().Perm() != 0o600 {
		t.Errorf("an existing database stays %v", fi.Mode().Perm())
	}
	made := filepath.Join(t.TempDir(), "new", "state")
	openTest(t, made)
	for _, d := range []string{made} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("state folder %s is %v, want drwx------", d, fi.Mode().Perm())
		}
	}
}
