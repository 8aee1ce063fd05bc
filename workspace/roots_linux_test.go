package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/result"
)

// handlesOn counts this process's open descriptors on dir.
func handlesOn(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && to == dir {
			n++
		}
	}
	return n
}

// TestSetRootsReleasesRemovedFolders: a folder removed from the workspace
// is let go at once (on Windows a handle held open keeps the user from
// deleting or renaming it), a folder that stays keeps its handle, so a call
// under way on it goes on, and one under way on the removed folder is told
// it is no longer open instead of reaching it. Close lets go of all.
func TestSetRootsReleasesRemovedFolders(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(d, "f.txt"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := New([]string{a, b}, Options{})
	defer w.Close()
	if handlesOn(t, b) == 0 {
		t.Fatal("no handle on a root: the test cannot tell")
	}
	inA, inB := w.Place(FromPath(filepath.Join(a, "f.txt"))), w.Place(FromPath(filepath.Join(b, "f.txt")))
	w.SetRoots([]string{a})
	if n := handlesOn(t, b); n != 0 {
		t.Fatalf("%d handles still open on a folder no longer in the workspace", n)
	}
	if d, err := w.GetAt(inA); err != nil || d.Snap.Text() != "x\n" {
		t.Fatalf("a read placed before the roots changed, in a folder that stays: %v", err)
	}
	_, err := w.GetAt(inB)
	if result.KindOf(err) != result.IOError || !strings.Contains(err.Error(), "no longer one of the workspace's folders") {
		t.Fatalf("a read placed in a folder since removed: %v, want an io_error saying so", err)
	}
	w.Close()
	if n := handlesOn(t, a); n != 0 {
		t.Fatalf("%d handles still open on a root after Close", n)
	}
}
