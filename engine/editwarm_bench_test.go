package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/internal/gosrc"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// warmEdit is a process that holds a 200,000-line (6.6 MB) file on disk,
// read once by the session, with its state database: what a long-lived
// process of the workspace has when an agent's one-line edit arrives.
type warmEdit struct {
	env  *Env
	uri  string
	path string
	n    int // line 100 is "var benchLine = n"
	// answers are the times to the answer, the history and the audit row
	// not included.
	answers []time.Duration
}

func newWarmEdit(tb testing.TB) *warmEdit {
	src, err := gosrc.Lines(200_000)
	if err != nil {
		tb.Skip(err)
	}
	src[99] = "var benchLine = 0\n" // the line every edit changes
	root := tb.TempDir()
	path := filepath.Join(root, "big.go")
	if err := os.WriteFile(path, []byte(strings.Join(src, "")), 0o644); err != nil {
		tb.Fatal(err)
	}
	env := SetupTest(tb, Options{Roots: []string{root}, Config: config.Default(), StateDir: tb.TempDir(), LockDir: tb.TempDir()})
	tb.Cleanup(func() { env.Close(context.Background()) })
	w := &warmEdit{env: env, uri: string(workspace.FromPath(path)), path: path}
	res, err := env.Read(context.Background(), ReadParams{TextDocument: TextDocument{URI: w.uri}, Range: &ledger.Range{Start: 95, End: 105}})
	if err != nil || !res.OK {
		tb.Fatalf("read: %v %+v", err, res.Outcome)
	}
	return w
}

// edit changes line 100 (the window of the last edit showed it), and waits for
// what the call leaves behind it (the history, the audit row), as the
// process's next call would share the machine with it.
func (w *warmEdit) edit(tb testing.TB) EditResult {
	from := fmt.Sprintf("var benchLine = %d", w.n)
	w.n++
	to := fmt.Sprintf("var benchLine = %d", w.n)
	raw, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("100:%s", hashline.Hash(from)), "new_content": to}})
	start := time.Now()
	res, err := w.env.Edit(context.Background(), EditParams{TextDocument: TextDocument{URI: w.uri}, Edits: raw})
	w.answers = append(w.answers, time.Since(start))
	if err != nil || !res.OK || !res.Applied {
		tb.Fatalf("edit %d: %v %+v", w.n, err, res.Outcome)
	}
	if _, err := json.Marshal(res); err != nil { // the answer's rendering
		tb.Fatal(err)
	}
	w.env.audits.drain()
	return res
}

// BenchmarkEditWarm6MB is a one-line edit of a 6.6 MB file in a process
// that already holds the document (no process start, no database open, no
// first read): the write transaction, the history, the answer. What it
// costs should grow with the change, not with the file.
func BenchmarkEditWarm6MB(b *testing.B) {
	w := newWarmEdit(b)
	// Past the stat cache's window, as an agent's file is when it edits it
	// first; then the file it writes is the one it edits next.
	time.Sleep(2100 * time.Millisecond)
	w.edit(b) // the first edit keeps the whole text before it
	w.answers = nil
	b.ReportAllocs()
	for b.Loop() {
		w.edit(b)
	}
	slices.Sort(w.answers)
	b.ReportMetric(float64(w.answers[len(w.answers)/2].Microseconds())/1000, "answer-p50-ms")
}
