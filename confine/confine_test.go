package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/result"
)

// linksWork reports whether this system makes symbolic links for this
// process, and why not: Windows makes them only with Developer Mode or the
// privilege to, and Wine answers success and makes none.
func linksWork(t *testing.T) (bool, string) {
	t.Helper()
	d := t.TempDir()
	if err := os.Symlink("x", filepath.Join(d, "l")); err != nil {
		return false, fmt.Sprintf("this system makes no symbolic links for this process (%v)", err)
	}
	if _, err := os.Lstat(filepath.Join(d, "l")); err != nil {
		return false, "this system answers success to making a symbolic link but makes none (Wine)"
	}
	return true, ""
}

// needLinks skips a test about symbolic links where none can be made.
func needLinks(t *testing.T) {
	t.Helper()
	if ok, why := linksWork(t); !ok {
		t.Skip(why)
	}
}

// setup makes a workspace with a file, a file outside it and, where the
// system makes them, symbolic links in and out.
func setup(t *testing.T) (*Root, string, string) {
	t.Helper()
	ws, out := t.TempDir(), t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "a/b"), 0o755))
	must(os.WriteFile(filepath.Join(ws, "a/b/c.txt"), []byte("c\n"), 0o644))
	must(os.WriteFile(filepath.Join(out, "x.txt"), []byte("SECRET\n"), 0o644))
	if ok, _ := linksWork(t); !ok {
		r, err := Open(ws, nil)
		must(err)
		t.Cleanup(func() { r.Close() })
		return r, ws, out
	}
	must(os.Symlink("a/b/c.txt", filepath.Join(ws, "rel")))
	must(os.Symlink(filepath.Join(ws, "a/b/c.txt"), filepath.Join(ws, "abs")))
	must(os.Symlink("rel", filepath.Join(ws, "chain")))
	must(os.Symlink(filepath.Join(out, "x.txt"), filepath.Join(ws, "out")))
	must(os.Symlink("out", filepath.Join(ws, "chainout")))
	must(os.Symlink("../..", filepath.Join(ws, "a/up")))
	must(os.Symlink("b", filepath.Join(ws, "a/bb")))
	must(os.Symlink("missing.txt", filepath.Join(ws, "dangling")))
	must(os.Symlink("loop2", filepath.Join(ws, "loop1")))
	must(os.Symlink("loop1", filepath.Join(ws, "loop2")))
	r, err := Open(ws, nil)
	must(err)
	t.Cleanup(func() { r.Close() })
	return r, ws, out
}

func TestResolve(t *testing.T) {
	r, ws, out := setup(t)
	links, _ := linksWork(t)
	for _, c := range []struct {
		rel, want, kind string
		exists          bool
	}{
		{"a/b/c.txt", "a/b/c.txt", "", true},
		{"rel", "a/b/c.txt", "", true},
		{"abs", "a/b/c.txt", "", true},
		{"chain", "a/b/c.txt", "", true},
		{"a/bb/c.txt", "a/b/c.txt", "", true},
		{"a/bb/../b/c.txt", "a/b/c.txt", "", true},
		{"a/new/x.txt", "a/new/x.txt", "", false},
		{".", ".", "", true},
		{"..", "", "denied", false},
		{"../x.txt", "", "denied", false},
		{"a/../../x.txt", "", "denied", false},
		{filepath.Join(out, "x.txt"), "", "denied", false},
		{"out", "", "denied", false},
		{"chainout", "", "denied", false},
		{"a/up/x", "", "denied", false},
		{"a/up/" + filepath.Base(ws) + "/a/b/c.txt", "", "denied", false},
		{"dangling", "", "denied", false},
		{"loop1", "", "io_error", false},
		{"a\x00b", "", "denied", false},
		{"a/b/c.txt/d", "", "io_error", false},
		{strings.Repeat("n", 256), "", "io_error", false},
		{strings.Repeat("d/", 2100), "", "io_error", false},
		{`\\server\share`, `\\server\share`, "", false}, // a name here; Windows' UNC path below
	} {
		if runtime.GOOS == "windows" && strings.HasPrefix(c.rel, `\\`) {
			c.want, c.kind = "", "denied"
		}
		if !links && usesLink(c.rel) {
			continue // no links here (see linksWork)
		}
		got, err := r.Resolve(c.rel, Read)
		if kind := string(result.KindOf(err)); kind != c.kind || err == nil && (got.Rel != filepath.FromSlash(c.want) || got.Exists != c.exists) {
			t.Errorf("Resolve(%.40q) = %q exists %v, %v (%s); want %q exists %v %s", c.rel, got.Rel, got.Exists, err, kind, c.want, c.exists, c.kind)
		}
		if err == nil && got.Real != filepath.Join(r.real, got.Rel) {
			t.Errorf("Resolve(%q).Real = %s", c.rel, got.Real)
		}
	}
}

// usesLink reports whether a test path goes through one of setup's links.
func usesLink(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	switch first {
	case "rel", "abs", "chain", "out", "chainout", "dangling", "loop1", "g":
		return true
	}
	return strings.HasPrefix(rel, "a/bb") || strings.HasPrefix(rel, "a/up")
}

func TestPolicy(t *testing.T) {
	r, ws, _ := setup(t)
	links, _ := linksWork(t)
	os.MkdirAll(filepath.Join(ws, ".git/hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git/config"), nil, 0o644)
	os.Symlink(".git", filepath.Join(ws, "g"))
	for _, c := range []struct {
		rel         string
		read, write bool
	}{
		{".git/HEAD", true, false},
		{".git/config", false, false},
		{".git/hooks/pre-commit", false, false},
		{".git/hooks", false, false},
		{".git/refs/config", true, false},
		{"g/config", false, false},
		{"g/HEAD", true, false},
		{".GIT/config", false, false},
		{".hg/hgrc", true, false},
		{".svn/entries", true, false},
		{"sub/.git/hooks/x", false, false},
		{"x.git/config", true, true},
		{".github/workflows/ci.yml", true, true},
	} {
		if !links && usesLink(c.rel) {
			continue
		}
		_, rerr := r.Resolve(c.rel, Read)
		_, werr := r.Resolve(c.rel, Write)
		if (rerr == nil) != c.read || (werr == nil) != c.write {
			t.Errorf("%s: read %v write %v; want read %v write %v", c.rel, rerr, werr, c.read, c.write)
		}
		for _, err := range []error{rerr, werr} {
			if err != nil && result.KindOf(err) != result.Denied {
				t.Errorf("%s: %v is not denied", c.rel, err)
			}
		}
	}
}

func TestStageKeepsModeAndLink(t *testing.T) {
	needLinks(t)
	r, ws, _ := setup(t)
	p := filepath.Join(ws, "a/b/c.txt")
	os.Chmod(p, 0o751)
	before, _ := os.Stat(p) // Windows keeps only the write bit
	tg, err := r.Resolve("rel", Write)
	if err != nil {
		t.Fatal(err)
	}
	if err := replaceText(r, tg, "new\n", nil); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if b, _ := os.ReadFile(p); string(b) != "new\n" || fi.Mode().Perm() != before.Mode().Perm() {
		t.Fatalf("after replace: %q %v", b, fi.Mode())
	}
	if fi, _ := os.Lstat(filepath.Join(ws, "rel")); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if ents, _ := os.ReadDir(filepath.Join(ws, "a/b")); len(ents) != 1 {
		t.Fatalf("leftovers: %v", ents)
	}
}

func TestStageRefusals(t *testing.T) {
	r, ws, _ := setup(t)
	os.WriteFile(filepath.Join(ws, "ro.txt"), []byte("ro\n"), 0o444)
	os.WriteFile(filepath.Join(ws, "hl.txt"), []byte("hl\n"), 0o644)
	os.Link(filepath.Join(ws, "hl.txt"), filepath.Join(ws, "hl2.txt"))
	for name, kind := range map[string]result.Kind{"ro.txt": result.ReadOnly, "hl.txt": result.Denied} {
		tg, err := r.Resolve(name, Write)
		if err != nil {
			t.Fatal(err)
		}
		if err := replaceText(r, tg, "x\n", nil); result.KindOf(err) != kind {
			t.Errorf("%s: %v, want %s", name, err, kind)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "hl2.txt")); string(b) != "hl\n" {
		t.Fatalf("hard link written: %q", b)
	}
}

func TestCreate(t *testing.T) {
	r, ws, _ := setup(t)
	tg, err := r.Resolve("n/m/new.txt", Write)
	if err != nil || tg.Exists {
		t.Fatal(tg, err)
	}
	if err := createText(r, tg, "hi\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "n/m/new.txt")); string(b) != "hi\n" {
		t.Fatalf("%q", b)
	}
	if err := createText(r, tg, "again\n"); result.KindOf(err) != result.Exists {
		t.Fatalf("create over a file: %v", err)
	}
	// Under a file: the OS's reason, as io_error.
	os.WriteFile(filepath.Join(ws, "f"), nil, 0o644)
	if _, err = r.Resolve("f/x/y", Write); result.KindOf(err) != result.IOError || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("create under a file: %v", err)
	}
}

func TestAbandonedTempsCleaned(t *testing.T) {
	r, ws, _ := setup(t)
	dir := filepath.Join(ws, "a/b")
	stale := filepath.Join(dir, ".sightline-0123abcd.tmp")
	os.WriteFile(stale, []byte("half"), 0o600)
	live := filepath.Join(dir, ".sightline-89abcdef.tmp")
	os.WriteFile(live, []byte("busy"), 0o600)
	lf, _ := os.Open(live)
	defer lf.Close()
	if err := lockTemp(lf); err != nil { // a writer still at work
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, ".sightline-notours.tmp")
	os.WriteFile(theirs, nil, 0o600)
	tg, _ := r.Resolve("a/b/c.txt", Write)
	if err := replaceText(r, tg, "zzzzzzzzzz", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("an abandoned temp file survived")
	}
	for _, p := range []string{live, theirs} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}

func TestReadAllSized(t *testing.T) {
	text := strings.Repeat("abcdefghij", 1000)
	for _, c := range []struct {
		size, limit int64
		want        int
	}{{10000, 1 << 20, 10000}, {10, 1 << 20, 10000}, {1 << 20, 1 << 20, 10000}, {0, 1 << 20, 10000}, {10000, 500, 501}} {
		got, err := ReadAll(strings.NewReader(text), c.size, c.limit, false)
		if err != nil || len(got) != c.want || string(got) != text[:c.want] {
			t.Errorf("size %d limit %d: %d bytes, %v", c.size, c.limit, len(got), err)
		}
	}
}

// ResolveEntry names a link itself, never the file it points to, while
// folders on the way still resolve.
func TestResolveEntryNamesTheLink(t *testing.T) {
	needLinks(t)
	r, _, _ := setup(t)
	for _, c := range []struct{ rel, want, kind string }{
		{"rel", "rel", ""},
		{"out", "out", ""},              // the link is inside, whatever it names
		{"dangling", "dangling", ""},    // so is a dangling one
		{"a/bb/c.txt", "a/b/c.txt", ""}, // folders resolve as in Resolve
		{"a/up/x", "", "denied"},
		{"../x.txt", "", "denied"},
	} {
		got, err := r.ResolveEntry(c.rel, Write)
		if kind := string(result.KindOf(err)); kind != c.kind || err == nil && (got.Rel != filepath.FromSlash(c.want) || !got.Exists) {
			t.Errorf("ResolveEntry(%q) = %q exists %v, %v; want %q %s", c.rel, got.Rel, got.Exists, err, c.want, c.kind)
		}
	}
	tg, err := r.ResolveEntry("rel", Write)
	if err != nil || tg.Info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("rel: %v %v", tg.Info, err)
	}
}

// A root closed while its files are read: every read under way finishes
// with the file's own bytes or fails, none reaches another folder (the
// root's descriptor number is never reused under a walk), and an operation
// after Close says the folder is no longer open.
func TestCloseWhileReading(t *testing.T) {
	ws, out := t.TempDir(), t.TempDir()
	for _, d := range []string{ws, out} {
		if err := os.MkdirAll(filepath.Join(d, "a"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a/f.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "a/f.txt"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		r, err := Open(ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := r.Resolve("a/f.txt", Read)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 4)
		for g := 0; g < 4; g++ {
			go func() {
				for i := 0; i < 50; i++ {
					data, _, err := r.ReadFile(tg, 1<<20)
					if err == nil && string(data) != "mine\n" {
						done <- fmt.Errorf("read %q through a closed root", data)
						return
					}
				}
				done <- nil
			}()
		}
		r.Close()
		// Folders opened now may take the closed descriptor's number.
		var held []*os.File
		for i := 0; i < 8; i++ {
			if f, err := os.Open(out); err == nil {
				held = append(held, f)
			}
		}
		for g := 0; g < 4; g++ {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range held {
			f.Close()
		}
		_, _, err = r.ReadFile(tg, 1<<20)
		if result.KindOf(err) != result.IOError || !strings.Contains(err.Error(), "no longer one of the workspace's folders") {
			t.Fatalf("read after Close: %v (%s), want an io_error saying the folder was closed", err, result.KindOf(err))
		}
	}
}
