package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/result"
)

func TestNormalize(t *testing.T) {
	same := [][]string{
		{"file:///home/u/a%20b.go", "file:///home/u/a b.go", "FILE:///home/u/./a%20b.go", "file://localhost/home/u/a%20b.go"},
		{"file:///c%3A/x/y.go", "file:///C:/x/y.go", "file:///c:/x/y.go"},
		{"file:///home/u/%40scope/x.ts", "file:///home/u/@scope/x.ts"},
		{"file:///home/u/d%C3%A9j%C3%A0.go", "file:///home/u/déjà.go"},
	}
	for _, group := range same {
		want, err := Normalize(group[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range group[1:] {
			got, err := Normalize(raw)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", raw, err)
			}
			if got != want {
				t.Errorf("Normalize(%q) = %q, want %q", raw, got, want)
			}
		}
	}
	for _, raw := range []string{"untitled:Untitled-1", "git:/a/b.go?%7B%7D", "vscode-notebook-cell:/x.ipynb#W0"} {
		k, err := Normalize(raw)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", raw, err)
		}
		if k.IsFile() {
			t.Errorf("%q is not a file", raw)
		}
		if _, ok := k.Path(); ok {
			t.Errorf("%q has no path", raw)
		}
	}
	for _, bad := range []string{"", "relative/path.go", "%zz:"} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%q) succeeded", bad)
		}
	}
}

func TestKeyPathRoundTrip(t *testing.T) {
	paths := []string{"/tmp/a b/c#d?.go", "/x/%41.go", "/déjà/vu.py", "/"}
	if runtime.GOOS == "windows" {
		paths = []string{`c:\no such\a b\c#d.go`, `c:\no such\%41.go`, `c:\no such\déjà\vu.py`, `c:\`}
	}
	for _, p := range paths {
		k := FromPath(p)
		got, ok := k.Path()
		if !ok || got != p {
			t.Errorf("FromPath(%q).Path() = %q, %v", p, got, ok)
		}
		k2, err := Normalize(string(k))
		if err != nil || k2 != k {
			t.Errorf("Normalize(FromPath(%q)) = %q, %v; want %q", p, k2, err, k)
		}
	}
}

// Windows spellings of one file: a percent-encoded or bare drive colon, an
// upper- or lower-case drive letter, '\' or '/', and a drive letter sent as
// a URI's host (file://C:/x, which some clients write) all make one key,
// whose path is a Windows path.
func TestWindowsSpellings(t *testing.T) {
	same := []string{"file:///c%3A/Src/a.go", "file:///C:/Src/a.go", "file:///c:/Src/./a.go", "file://C:/Src/a.go", "file:///C%3a/Src/a.go"}
	want, err := Normalize(same[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range same[1:] {
		if got, err := Normalize(raw); err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	if runtime.GOOS != "windows" {
		return
	}
	for _, p := range []string{`C:\Src\a.go`, `c:/Src/a.go`, `C:\Src\x\..\a.go`} {
		if got := FromPath(p); got != want {
			t.Errorf("FromPath(%q) = %q, want %q", p, got, want)
		}
	}
	if p, ok := want.Path(); !ok || p != `c:\Src\a.go` {
		t.Errorf("Path() = %q, %v; want c:\\Src\\a.go", p, ok)
	}
}

// On Windows a path that differs only in case names the same file, so it
// is the same document: the key spells each name that exists as the disk
// does, and a name that does not exist yet as given (a file created under
// it keeps the caller's case).
func TestWindowsCaseInsensitiveKeys(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("names differ by case on this system")
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "Src", "Pkg"), 0o755)
	os.WriteFile(filepath.Join(root, "Src", "Pkg", "Main.go"), []byte("package main\r\n"), 0o644)
	want := FromPath(filepath.Join(root, "Src", "Pkg", "Main.go"))
	for _, p := range []string{
		filepath.Join(strings.ToUpper(root), "SRC", "pkg", "MAIN.GO"),
		filepath.Join(strings.ToLower(root), "src", "PKG", "main.go"),
	} {
		if got := FromPath(p); got != want {
			t.Errorf("FromPath(%q) = %q, want %q", p, got, want)
		}
		if got, err := Normalize(FromPathAsGiven(p)); err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", FromPathAsGiven(p), got, err, want)
		}
	}
	if got, want := FromPath(filepath.Join(root, "SRC", "New.go")), FromPath(filepath.Join(root, "Src", "New.go")); got != want {
		t.Errorf("a new file under a folder spelled in another case: %q, want %q", got, want)
	}
	w := newWS(t, []string{root}, Options{})
	a, errA := w.Get(FromPath(filepath.Join(root, "src", "pkg", "main.go")))
	b, errB := w.Get(FromPath(filepath.Join(root, "SRC", "PKG", "MAIN.GO")))
	if errA != nil || errB != nil || a.Key != b.Key || a.Snap.Text() != "package main\r\n" {
		t.Errorf("one file, two spellings: %q %v, %q %v", a.Key, errA, b.Key, errB)
	}
}

// Names Windows reserves for devices are refused whichever way a document
// names them, before anything is read or created.
func TestWindowsReservedNames(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("no reserved names on this system")
	}
	root := t.TempDir()
	w := newWS(t, []string{root}, Options{})
	for _, name := range []string{"CON", "nul.txt", "COM1", `sub\aux.go`, "prn.md"} {
		k, err := Normalize(FromPathAsGiven(filepath.Join(root, name)))
		if err == nil {
			_, err = w.Get(k)
		}
		if result.KindOf(err) != result.InvalidParams || !strings.Contains(err.Error(), "Windows") {
			t.Errorf("%s: %v (%s), want invalid_params naming Windows' rule", name, err, result.KindOf(err))
		}
	}
}

// A CRLF file (the common case on Windows) loads with its line ending
// kept: the text is the disk's bytes.
func TestCRLFLoads(t *testing.T) {
	root := t.TempDir()
	text := "one\r\ntwo\r\n\r\nfour"
	os.WriteFile(filepath.Join(root, "crlf.txt"), []byte(text), 0o644)
	w := newWS(t, []string{root}, Options{})
	d, err := w.Get(FromPath(filepath.Join(root, "crlf.txt")))
	if err != nil || d.Snap.Text() != text || d.Snap.LineCount() != 4 {
		t.Fatalf("%q %v", d.Snap.Text(), err)
	}
}

// FromPathAsGiven is the file URI a client would send for p, its case
// untouched (VS Code: lower-case drive letter, encoded colon).
func FromPathAsGiven(p string) string {
	s := filepath.ToSlash(p)
	if len(s) >= 2 && s[1] == ':' {
		s = "/" + strings.ToLower(s[:1]) + "%3A" + s[2:]
	}
	return "file://" + s
}
