package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/confine"
)

// SetRacyAge sets how old a change must be for its file's hash to be cached
// (tests use files written moments ago) and returns the restore.
func SetRacyAge(d time.Duration) func() {
	old := racyAge
	racyAge = d
	return func() { racyAge = old }
}

// CountDiskReads counts the reads ReadDisk answers itself, from the stat
// cache (hits) or by reading the whole file (scans), until the restore.
func CountDiskReads(hits, scans *int) func() {
	onDiskRead = func(hit bool) {
		if hit {
			*hits++
		} else {
			*scans++
		}
	}
	return func() { onDiskRead = nil }
}

// StatKeyed reports whether this platform gives what the stat cache and the
// remembered file hashes are keyed by (a change time and the file's
// identity, from an opened file: statOf); where it does not, ReadDisk is
// Read and every hash is computed again.
func StatKeyed(t testing.TB) bool {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := confine.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := fileStat("", fi)
	return ok
}
