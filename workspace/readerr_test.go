package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sightline-lsp/sightline/result"
)

func TestReadErrorKinds(t *testing.T) {
	root := t.TempDir()
	w := newWS(t, []string{root}, Options{})
	k := FromPath(filepath.Join(root, "a.txt"))
	for _, c := range []struct {
		err  error
		kind result.Kind
		want string
	}{
		{&fs.PathError{Op: "open", Path: "/x/a.txt", Err: syscall.ENOENT}, result.NotFound, "does not exist"},
		{&fs.PathError{Op: "open", Path: "/x/a.txt", Err: syscall.EACCES}, result.Denied, "permission denied"},
		{&fs.PathError{Op: "read", Path: "/x/a.txt", Err: syscall.EIO}, result.NotFound, "input/output error"},
	} {
		got := w.readError(k, c.err)
		if result.KindOf(got) != c.kind || !strings.Contains(result.Message(got), c.want) || !errors.Is(got, c.err) {
			t.Errorf("%v: got %s %q", c.err, result.KindOf(got), result.Message(got))
		}
	}
}

func TestNormalizeNUL(t *testing.T) {
	for _, u := range []string{"file:///a%00b", "file:///a\x00b"} {
		_, err := Normalize(u)
		if result.KindOf(err) != result.Denied || strings.ContainsRune(result.Message(err), 0) {
			t.Errorf("%q: %v", u, err)
		}
	}
}
