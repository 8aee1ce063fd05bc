package confine

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStagedSteps: a staged text moves into place only over the file that
// was checked; every step is idempotent (a journal replays them); a
// discarded stage leaves nothing, not even the folders it made.
func TestStagedSteps(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644)
	r, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.Copy(w, bytes.NewBufferString(s)); return err }
	}
	ta, _ := r.Resolve("a.txt", Write)
	fi, _ := r.Info("a.txt")
	old := IDOf(fi)
	s, err := r.Stage(ta, StageName(), text("new\n"), fi, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Changed by someone else meanwhile: refused, the file kept.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("theirs!\n"), 0o644)
	if err := r.Put(s.Temp, "a.txt", old); !errors.Is(err, ErrChanged) {
		t.Fatalf("put over a changed file: %v", err)
	}
	id, _ := r.ID("a.txt")
	if err := r.Put(s.Temp, "a.txt", id); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := r.Put(s.Temp, "a.txt", id); err != nil { // replayed: done already
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "new\n" {
		t.Fatalf("a.txt: %q", b)
	}
	tn, _ := r.Resolve("x/y/n.txt", Write)
	s, err = r.Stage(tn, StageName(), text("n\n"), nil, 0o755, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Discard(s)
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Fatalf("a discarded stage left its folders: %v", err)
	}
	s, _ = r.Stage(tn, StageName(), text("n\n"), nil, 0o755, nil)
	s.Close()
	for range 2 {
		if err := r.Place(s.Temp, tn.Rel); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "x/y/n.txt")); err != nil || fi.Mode().Perm()&0o100 == 0 && runtime.GOOS != "windows" { // Windows has no execute bit
		t.Fatalf("placed: %v %v", fi, err)
	}
	id, _ = r.ID("a.txt")
	for range 2 {
		if err := r.RemoveID("a.txt", id); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "x/y"))
	if len(ents) != 1 {
		t.Fatalf("left in x/y: %v", ents)
	}
}

// A released stage holds no descriptor: it is discarded by name, folders
// included, and once placed its state is the placed file's, or ErrChanged
// when another file took the name.
func TestReleasedStage(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	text := func(w io.Writer) error { _, err := io.WriteString(w, "n\n"); return err }
	tn, _ := r.Resolve("x/y/n.txt", Write)
	s, err := r.Stage(tn, StageName(), text, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Release()
	r.Discard(s)
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Fatalf("a discarded released stage left its folders: %v", err)
	}
	s, err = r.Stage(tn, StageName(), text, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Release()
	if err := r.Place(s.Temp, tn.Rel); err != nil {
		t.Fatal(err)
	}
	fi, err := s.Info()
	if err != nil || fi.Size() != 2 {
		t.Fatalf("placed: %v %v", fi, err)
	}
	os.Remove(filepath.Join(dir, "x/y/n.txt"))
	os.WriteFile(filepath.Join(dir, "x/y/n.txt"), []byte("theirs\n"), 0o644)
	if _, err := s.Info(); !errors.Is(err, ErrChanged) {
		t.Fatalf("another file under the name: %v", err)
	}
}
