package workspace

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/result"
)

// FuzzNormalizeResolve: any URI either fails to normalise or gives a key
// that normalises to itself; a NUL is always denied and never echoed raw;
// any path either resolves inside the workspace or is refused as denied.
func FuzzNormalizeResolve(f *testing.F) {
	for _, s := range []string{"file:///a/b.go", "file:///C%3A/x", "file://host/share/x", "untitled:Untitled-1",
		"file:///a/%00b", "file:///a/../../etc/passwd", "no-scheme", "file:///a b/c%20d", "../outside", "sub/./x/../y", "/abs/elsewhere", "a\x00b"} {
		f.Add(s)
	}
	root := f.TempDir()
	w := newWS(f, []string{root}, Options{})
	f.Fuzz(func(t *testing.T, s string) {
		k, err := Normalize(s)
		if err != nil && strings.ContainsRune(result.Message(err), 0) {
			t.Fatalf("%q: message holds a raw NUL: %q", s, result.Message(err))
		}
		if err == nil {
			if strings.ContainsRune(string(k), 0) {
				t.Fatalf("%q: key holds a NUL", s)
			}
			if k2, err := Normalize(string(k)); err != nil || k2 != k {
				t.Fatalf("%q: key %q normalises to %q, %v", s, k, k2, err)
			}
		}
		rk, err := w.Resolve(s)
		if err != nil {
			if result.KindOf(err) != result.Denied {
				t.Fatalf("Resolve(%q): %v", s, err)
			}
			return
		}
		p, ok := rk.Path()
		if !ok || !w.Inside(p) || !hasPrefixFold(p, filepath.Clean(root)) {
			t.Fatalf("Resolve(%q) = %q, outside %s", s, p, root)
		}
	})
}

// hasPrefixFold is strings.HasPrefix for paths, whose case Windows does
// not tell apart (keys lower-case the drive letter).
func hasPrefixFold(p, prefix string) bool {
	if runtime.GOOS != "windows" {
		return strings.HasPrefix(p, prefix)
	}
	return len(p) >= len(prefix) && strings.EqualFold(p[:len(prefix)], prefix)
}
