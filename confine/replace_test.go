package confine

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/result"
)

// expectText checks that the file holds want.
func expectText(want string) func(io.Reader) error {
	return func(r io.Reader) error {
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if string(b) != want {
			return ErrChanged
		}
		return nil
	}
}

func writeText(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// replaceText does what the write transaction does with one existing file:
// its state and bytes are checked while the new text is staged, its state
// again before the text is put in place, and its bytes too when that state
// is too recent to trust. check nil: no check of the bytes.
func replaceText(r *Root, tg Target, text string, check func(io.Reader) error) error {
	like, err := r.Info(tg.Rel)
	if err != nil {
		return err
	}
	old := IDOf(like)
	reread := func() error {
		f, fi, err := r.OpenRead(tg)
		if err != nil {
			return err
		}
		defer f.Close()
		if IDOf(fi) != old {
			return ErrChanged
		}
		return check(f)
	}
	var checkFn func() error
	if check != nil {
		checkFn = reread
	}
	s, err := r.Stage(tg, "", writeText(text), like, 0, checkFn)
	if err != nil {
		return err
	}
	defer s.Close()
	if check != nil && s.Recent(old) {
		if err := reread(); err != nil {
			r.Discard(s)
			return err
		}
	}
	if err := r.Put(s.Temp, tg.Rel, old); err != nil {
		r.Discard(s)
		return err
	}
	return nil
}

// createText does what the write transaction does with a new file.
func createText(r *Root, tg Target, text string) error {
	if tg.Exists {
		return ErrChanged
	}
	s, err := r.Stage(tg, "", writeText(text), nil, 0, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := r.Place(s.Temp, tg.Rel); err != nil {
		r.Discard(s)
		return err
	}
	return nil
}

func TestStageChecksTheFileItReplaces(t *testing.T) {
	r, ws, _ := setup(t)
	p := filepath.Join(ws, "a/b/c.txt")
	os.WriteFile(p, []byte("old\n"), 0o644)
	tg, _ := r.Resolve("a/b/c.txt", Write)
	if err := replaceText(r, tg, "new\n", expectText("old\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("%q", b)
	}
	// Not what the caller planned against: nothing written.
	if err := replaceText(r, tg, "newer\n", expectText("old\n")); !errors.Is(err, ErrChanged) {
		t.Fatalf("replace of a file that holds other text: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("written anyway: %q", b)
	}
	assertNoTemps(t, filepath.Join(ws, "a/b"))
}

// The check runs while the new copy is written; a writer that changes the
// file after it was checked, in place and to the same size, or by renaming
// another file over it, is still seen before the new copy takes its place.
func TestStageSeesAChangeAfterTheCheck(t *testing.T) {
	for name, change := range map[string]func(p string) error{
		"in place": func(p string) error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt([]byte("OLD"), 0)
			return err
		},
		"renamed over": func(p string) error {
			os.WriteFile(p+".x", []byte("OLD\n"), 0o644)
			return os.Rename(p+".x", p)
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, aged := range []bool{false, true} {
				r, ws, _ := setup(t)
				p := filepath.Join(ws, "a/b/c.txt")
				os.WriteFile(p, []byte("old\n"), 0o644)
				if aged { // the file's last change well before the write: no re-read needed
					time.Sleep(30 * time.Millisecond)
				}
				tg, _ := r.Resolve("a/b/c.txt", Write)
				check := expectText("old\n")
				changed := false
				var changeErr error
				err := replaceText(r, tg, "new\n", func(rd io.Reader) error {
					err := check(rd)
					if !changed {
						changeErr = change(p)
						changed = true
					}
					return err
				})
				if changeErr != nil {
					// Windows without POSIX rename semantics (and Wine):
					// no program can rename over a file sightline is
					// reading, which is the change this case makes.
					t.Skipf("the other writer's change failed: %v", changeErr)
				}
				if !errors.Is(err, ErrChanged) {
					t.Fatalf("aged %v: %v, want ErrChanged", aged, err)
				}
				if b, _ := os.ReadFile(p); string(b) != "OLD\n" {
					t.Fatalf("aged %v: the other writer's text is gone: %q", aged, b)
				}
				assertNoTemps(t, filepath.Join(ws, "a/b"))
			}
		})
	}
}

// A file whose last change is as recent as the stage's start cannot be
// trusted to show a later change in its times.
func TestRecent(t *testing.T) {
	s := &Staged{born: 1000}
	for _, c := range []struct {
		name   string
		ctime  int64
		recent bool
	}{
		{"changed before", 500, false},
		{"changed in the stage's tick", 1000, true},
		{"changed after", 1200, true},
		{"no times", 0, true},
	} {
		if got := s.Recent(FileID{Dev: 1, Ino: 7, Size: 4, Ctime: c.ctime}); got != c.recent {
			t.Errorf("%s: recent %v, want %v", c.name, got, c.recent)
		}
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if bytes.HasPrefix([]byte(e.Name()), []byte(tempPrefix)) {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

// A file open elsewhere while it is replaced: by sightline's own reader
// (which shares delete access, as every handle confine opens does) or by a
// program that does not share it (Go's os.Open on Windows). The replace
// either lands, the reader keeping the text it opened, or is refused with a
// message that says the file is open elsewhere, leaving the file and its
// folder as they were. Unix always lands; Windows with POSIX rename
// semantics (NTFS, Windows 10 1709 and later) lands with a sharing reader;
// older file systems, and Wine, refuse.
func TestReplaceWhileOpen(t *testing.T) {
	for name, hold := range map[string]func(r *Root, tg Target) (io.ReadCloser, error){
		"sightline's reader": func(r *Root, tg Target) (io.ReadCloser, error) {
			f, _, err := r.OpenRead(tg)
			return f, err
		},
		"another program": func(r *Root, tg Target) (io.ReadCloser, error) {
			return os.Open(filepath.Join(r.Dir(), tg.Rel))
		},
	} {
		t.Run(name, func(t *testing.T) {
			r, ws, _ := setup(t)
			p := filepath.Join(ws, "a/b/c.txt")
			os.WriteFile(p, []byte("old\n"), 0o644)
			tg, _ := r.Resolve("a/b/c.txt", Write)
			f, err := hold(r, tg)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = replaceText(r, tg, "new\n", expectText("old\n"))
			b, _ := os.ReadFile(p)
			switch {
			case err == nil:
				if string(b) != "new\n" {
					t.Fatalf("replaced, but the file holds %q", b)
				}
				if held, _ := io.ReadAll(f); string(held) != "old\n" {
					t.Errorf("the reader's open file now reads %q, want the text it opened", held)
				}
			case result.KindOf(err) == result.IOError && strings.Contains(err.Error(), "open in another program"):
				t.Logf("refused: %v", err)
				if string(b) != "old\n" {
					t.Fatalf("refused, but the file holds %q", b)
				}
			default:
				t.Fatalf("replace of an open file: %v (%s)", err, result.KindOf(err))
			}
			assertNoTemps(t, filepath.Join(ws, "a/b"))
		})
	}
}
