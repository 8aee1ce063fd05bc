package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

func history(t *testing.T, e *lsptest.Editor, u string) engine.HistoryResult {
	t.Helper()
	var res engine.HistoryResult
	if err := e.Call("sightline/history", map[string]any{"textDocument": map[string]string{"uri": u}}, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// Write, write, diff, roll back: byte for byte, for CRLF and BOM files, on
// disk and in an open buffer (which receives a workspace edit).
func TestHistoryRoundTrip(t *testing.T) {
	userConfig(t, "")
	files := map[string]string{
		"crlf.txt": "alpha\r\nbeta\r\ngamma\r\n",
		"bom.txt":  "\ufeffone\ntwo\nthree",
		"mixed.go": "package a\r\n\nfunc A() {}\r",
		"open.txt": "x\ny\nz\n",
	}
	e, root := start(t, files, lsptest.Options{})
	disk := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(root, name))
		return string(b)
	}
	for _, name := range []string{"crlf.txt", "bom.txt", "mixed.go", "open.txt"} {
		u := fileURI(root, name)
		if name == "open.txt" {
			e.Open(u, "plaintext", files[name])
		}
		read(t, e, u, nil, nil)
		if w := write(t, e, u, "append", "added one\n", nil); !w.OK {
			t.Fatalf("%s: first write: %+v", name, w.Outcome)
		}
		afterFirst := disk(name)
		if name == "open.txt" {
			afterFirst = e.Buffer(u)
		}
		if w := write(t, e, u, "overwrite", "replaced\nall\n", nil); !w.OK {
			t.Fatalf("%s: second write: %+v", name, w.Outcome)
		}
		h := history(t, e, u)
		// The original (found), the first write, the second.
		if len(h.Versions) != 3 || h.Versions[0].Method != "found" || h.Versions[2].Method != "sightline/write" || h.Versions[2].FileHash != h.FileHash {
			t.Fatalf("%s: history %+v", name, h)
		}
		var d engine.DiffResult
		if err := e.Call("sightline/diff", map[string]any{"textDocument": map[string]string{"uri": u}}, &d); err != nil || !d.OK ||
			!strings.Contains(d.Diff, "+replaced") || !strings.Contains(d.Diff, "-added one") {
			t.Fatalf("%s: diff %+v %v", name, d, err)
		}
		for _, v := range []struct {
			id   int64
			want string
		}{{h.Versions[0].ID, files[name]}, {h.Versions[1].ID, afterFirst}} {
			var r engine.RollbackResult
			if err := e.Call("sightline/rollback", map[string]any{"textDocument": map[string]string{"uri": u}, "version": v.id}, &r); err != nil || !r.OK || !r.Applied {
				t.Fatalf("%s: rollback to %d: %+v %v", name, v.id, r, err)
			}
			got := disk(name)
			if name == "open.txt" {
				got = e.Buffer(u)
			}
			if got != v.want {
				t.Fatalf("%s: rolled back to %d: %q, want %q", name, v.id, got, v.want)
			}
		}
	}
	// A rollback is guarded: another session that read nothing is refused.
	u := fileURI(root, "crlf.txt")
	h := history(t, e, u)
	var r engine.RollbackResult
	if err := e.Call("sightline/rollback", map[string]any{"textDocument": map[string]string{"uri": u}, "version": h.Versions[2].ID, "session": "other"}, &r); err != nil || r.OK || r.Error != "unread_range" {
		t.Fatalf("unguarded rollback: %+v %v", r.Outcome, err)
	}
}
