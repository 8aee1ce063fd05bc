package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Every CLI call opens the database and closes it. The write-ahead log and
// its index are kept between processes (emptied, not removed, at the last
// close): creating them anew made every call create two files, sync the
// folder and remove them again.
func TestCloseKeepsTheWriteAheadLog(t *testing.T) {
	dir := t.TempDir()
	wal := filepath.Join(dir, FileName+"-wal")
	var first os.FileInfo
	for i := range 3 {
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.PutEntries(context.Background(), []Entry{entry("s", "file:///a", i+1)}); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(wal)
		if err != nil {
			t.Fatalf("close %d removed the write-ahead log: %v", i+1, err)
		}
		if fi.Size() != 0 {
			t.Errorf("close %d left %d bytes in the write-ahead log, want it checkpointed and emptied", i+1, fi.Size())
		}
		if first == nil {
			first = fi
		} else if !os.SameFile(first, fi) {
			t.Errorf("open %d made a new write-ahead log", i+1)
		}
	}
	// What was written is in the database file itself.
	db := openTest(t, dir)
	es, err := db.DocEntries(context.Background(), "file:///a")
	if err != nil || len(es) != 1 || es[0].TotalLines != 3 {
		t.Fatalf("entries after reopening: %+v %v", es, err)
	}
}
