package confine

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// expectText is what a caller hands Replace: the file must hold want.
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

func TestReplaceChecksTheFileItReplaces(t *testing.T) {
	r, ws, _ := setup(t)
	p := filepath.Join(ws, "a/b/c.txt")
	os.WriteFile(p, []byte("old\n"), 0o644)
	tg, _ := r.Resolve("a/b/c.txt", Write)
	if _, err := r.Replace(tg, writeText("new\n"), expectText("old\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("%q", b)
	}
	// Not what the caller planned against: nothing written.
	if _, err := r.Replace(tg, writeText("newer\n"), expectText("old\n")); !errors.Is(err, ErrChanged) {
		t.Fatalf("replace of a file that holds other text: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("written anyway: %q", b)
	}
	assertNoTemps(t, filepath.Join(ws, "a/b"))
}

// The check runs while the new copy is written; a writer that changes the
// file after it was checked, in place and to the same size, or by renaming
// another file over it, is still seen before the rename.
func TestReplaceSeesAChangeAfterTheCheck(t *testing.T) {
	for name, change := range map[string]func(p string){
		"in place": func(p string) {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("OLD"), 0)
			f.Close()
		},
		"renamed over": func(p string) {
			os.WriteFile(p+".x", []byte("OLD\n"), 0o644)
			os.Rename(p+".x", p)
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
				_, err := r.Replace(tg, writeText("new\n"), func(rd io.Reader) error {
					err := check(rd)
					change(p)
					return err
				})
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

// A file whose last change is as recent as the write's start cannot be
// trusted to show a later change in its times: it is read again.
func TestUnchangedSince(t *testing.T) {
	at := func(ino uint64, size int64, ctime int64) statID {
		return statID{dev: 1, ino: ino, size: size, mtime: ctime, ctime: ctime, ok: true}
	}
	const born = 1000
	for _, c := range []struct {
		name        string
		before, now statID
		same, racy  bool
	}{
		{"untouched", at(7, 4, 500), at(7, 4, 500), true, false},
		{"changed", at(7, 4, 500), at(7, 4, 1200), false, false},
		{"grown", at(7, 4, 500), at(7, 5, 500), false, false},
		{"another file", at(7, 4, 500), at(8, 4, 500), false, false},
		{"changed in the write's tick", at(7, 4, born), at(7, 4, born), true, true},
		{"no times", statID{}, statID{}, true, true},
	} {
		same, racy := unchangedSince(c.before, c.now, born)
		if same != c.same || racy != c.racy {
			t.Errorf("%s: same %v racy %v, want %v %v", c.name, same, racy, c.same, c.racy)
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
