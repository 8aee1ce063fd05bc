package workspace

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/result"
)

// TestConcurrentGetsReadOnce: a storm of requests for a large closed file
// that is not loaded yet reads it once, not once per request (2,000
// cancelled reads of a 50 MB file once held 13 GB).
func TestConcurrentGetsReadOnce(t *testing.T) {
	root := t.TempDir()
	text := strings.Repeat(strings.Repeat("y", 63)+"\n", 8<<20/64) // 8 MB
	p := filepath.Join(root, "big.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWS(t, []string{root}, Options{})
	k := FromPath(p)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, err := w.Get(k); err != nil || d.Snap.Len() != len(text) {
				t.Errorf("get: %v", err)
			}
		}()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 6*uint64(len(text)) {
		t.Fatalf("32 concurrent loads allocated %d MB for an %d MB file", got>>20, len(text)>>20)
	}
}

// A large file is hashed while it is read, in parts: the hash is the whole
// file's, whatever the sizes of the parts the reads return.
func TestLargeFileHashedWhileRead(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 3*hashPart+12345; i++ {
		fmt.Fprintf(&b, "line %d of a file read in parts\n", i)
	}
	text := b.String()
	p := filepath.Join(root, "big.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first sight of a document is a change its follower takes, with
	// the document's hash (computed while the file was read) ready for the
	// ledger's restore.
	w := newWS(t, []string{root}, Options{})
	got := make(chan Doc, 1)
	go func() {
		d, err := w.Get(FromPath(p))
		if err != nil {
			t.Error(err)
		}
		got <- d
	}()
	var d Doc
	select {
	case d = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("Get hangs")
	}
	evs := w.ChangesSince(0)
	if len(evs) != 1 || !evs[0].First {
		t.Fatalf("changes %+v, want one first sight", evs)
	}
	seen := evs[0].Doc.FileHash()
	if got, want := d.FileHash(), fileHash(text); got != want || seen != want || len(text) < hashAheadMin {
		t.Fatalf("hash %s, want %s (%d bytes)", got, want, len(text))
	}
}

// A large file is checked for text by the goroutine that hashes it: a NUL
// or a broken character anywhere, the last part included, still makes it
// binary.
func TestLargeBinaryFileRefused(t *testing.T) {
	root := t.TempDir()
	body := strings.Repeat("text of a large file\n", (hashAheadMin+hashPart)/21)
	w := newWS(t, []string{root}, Options{})
	for name, text := range map[string]string{"nulbyte.txt": body + "\x00\n", "utf8.txt": body + "\xe2\x82", "ok.txt": body + "€\n"} {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := w.Get(FromPath(p))
		if got := result.KindOf(err); got != map[string]result.Kind{"nulbyte.txt": result.Binary, "utf8.txt": result.Binary, "ok.txt": ""}[name] {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// fileHash is the file hash of a text (hashline.FileHashOf its SHA-256).
func fileHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hashline.FileHashOf(sum[:])
}
