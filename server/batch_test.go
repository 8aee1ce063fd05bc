package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

// numbered returns n lines "line 1".."line n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestBatchShiftingLines: one edit whose first op shifts the lines of the
// second. Disk, buffer, the server's text, the window and the ledger must
// all agree with the text the batch means.
func TestBatchShiftingLines(t *testing.T) {
	src := numbered(20)
	var want strings.Builder
	for i := 1; i <= 20; i++ {
		switch i {
		case 10:
			want.WriteString("TEN\n")
		default:
			fmt.Fprintf(&want, "line %d\n", i)
		}
		if i == 2 {
			want.WriteString("a\nb\nc\n")
		}
	}
	batch := []map[string]any{
		{"type": "insert_after", "ref": ref(src, 2), "new_content": "a\nb\nc"},
		{"type": "replace_line", "ref": ref(src, 10), "new_content": "TEN"},
	}
	for _, open := range []bool{false, true} {
		t.Run(fmt.Sprintf("open=%v", open), func(t *testing.T) {
			e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{})
			u := fileURI(root, "f.txt")
			if open {
				e.Open(u, "plaintext", src)
			}
			read(t, e, u, nil, nil)
			res := edit(t, e, u, batch, nil)
			if !res.OK {
				t.Fatalf("edit refused: %+v", res.Outcome)
			}
			got := e.Buffer(u)
			if !open {
				b, _ := os.ReadFile(filepath.Join(root, "f.txt"))
				got = string(b)
			}
			if got != want.String() {
				t.Fatalf("text after edit:\n%s\nwant\n%s", got, want.String())
			}
			// The window shows real lines of the new text.
			wl := splitLSP(want.String())
			for _, l := range strings.Split(strings.TrimSuffix(res.Window, "\n"), "\n") {
				var n int
				var h, c string
				if _, err := fmt.Sscanf(l, "%d:", &n); err != nil {
					t.Fatalf("window line %q", l)
				}
				h, c, _ = strings.Cut(l[strings.Index(l, ":")+1:], "|")
				if c != wl[n-1] || h != hashOf(wl[n-1]) {
					t.Fatalf("window line %q, but line %d is %q", l, n, wl[n-1])
				}
			}
			// The server serves the new text.
			rr := read(t, e, u, nil, nil)
			if !strings.Contains(rr.Content, "13:"+hashOf("TEN")+"|TEN") {
				t.Fatalf("read after edit:\n%s", rr.Content)
			}
			// The agent's lines are its own.
			var led engine.LedgerResult
			e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &led)
			d := led.Documents[0]
			if len(d.Stale) != 0 || !hasRange(d.Authored, ledger.Range{Start: 3, End: 5}) || !hasRange(d.Authored, ledger.Range{Start: 13, End: 13}) {
				t.Fatalf("ledger after own edit: %+v", d)
			}
			// And the next edit, by the new numbers, lands.
			res = edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": "13:" + hashOf("TEN"), "new_content": "ten"}}, nil)
			if !res.OK || len(res.Remapped) != 0 {
				t.Fatalf("second edit: %+v %+v", res.Outcome, res.Remapped)
			}
		})
	}
}

// TestNoOpEditTouchesNothing: an edit that writes back what is there changes
// nothing: no write, no diff, the file's mtime kept.
func TestNoOpEditTouchesNothing(t *testing.T) {
	src := numbered(5)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{})
	u := fileURI(root, "f.txt")
	path := filepath.Join(root, "f.txt")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	read(t, e, u, nil, nil)
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 3), "new_content": "line 3"}}, nil)
	if !res.OK || res.Applied || res.Diff != "" {
		t.Fatalf("no-op edit: %+v applied %v diff %q", res.Outcome, res.Applied, res.Diff)
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.ModTime().Equal(old) {
		t.Fatalf("no-op edit touched the file: %v %v", fi.ModTime(), err)
	}
}

// TestOutsideBufferRefused: a buffer the editor holds of a file outside the
// workspace is outside it: reads and every write mode are denied alike.
func TestOutsideBufferRefused(t *testing.T) {
	e, _ := start(t, map[string]string{"in.txt": "x\n"}, lsptest.Options{})
	outside := filepath.Join(t.TempDir(), "out.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	u := "file://" + outside
	e.Open(u, "plaintext", "secret\n")
	var rr engine.ReadResult
	e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}}, &rr)
	if rr.OK || rr.Error != "denied" || strings.Contains(rr.Content, "secret") {
		t.Fatalf("read of an outside buffer: %+v", rr.Outcome)
	}
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": "1:" + hashOf("secret"), "new_content": "x"}}, nil)
	if res.OK || res.Error != "denied" {
		t.Fatalf("edit of an outside buffer: %+v", res.Outcome)
	}
	var wr engine.WriteResult
	e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": u}, "mode": "append", "content": "y\n"}, &wr)
	if wr.OK || wr.Error != "denied" || e.Buffer(u) != "secret\n" {
		t.Fatalf("write to an outside buffer: %+v", wr.Outcome)
	}
}
