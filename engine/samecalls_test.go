package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// calls runs a sequence of calls on one file either in one Env that lives
// through them all (a language server, the daemon, sightline mcp) or in a
// new Env per call over the same state folder (the CLI, one process a
// call). Both must answer the same.
type calls struct {
	t     testing.TB
	root  string
	state string
	path  string
	uri   string
	env   *engine.Env // the long-lived one; nil: an Env per call
}

func newCalls(t testing.TB, text string, longLived bool) *calls {
	c := &calls{t: t, root: t.TempDir(), state: t.TempDir()}
	c.path = filepath.Join(c.root, "f.txt")
	c.uri = string(workspace.FromPath(c.path))
	c.write(text)
	if longLived {
		c.env = c.open()
		t.Cleanup(func() { c.env.Close(context.Background()) })
	}
	return c
}

func (c *calls) open() *engine.Env {
	return engine.SetupTest(c.t, engine.Options{Roots: []string{c.root}, Config: config.Default(), StateDir: c.state})
}

// write changes the file as another program would.
func (c *calls) write(text string) {
	c.t.Helper()
	if err := os.WriteFile(c.path, []byte(text), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func (c *calls) run(f func(*engine.Env)) {
	if c.env != nil {
		f(c.env)
		return
	}
	e := c.open()
	f(e)
	if err := e.Close(context.Background()); err != nil {
		c.t.Fatal(err)
	}
}

// readDisk reads lines a-b as the CLI does (ReadDisk: streamed from the
// disk when the process does not hold the document).
func (c *calls) readDisk(a, b int) string {
	c.t.Helper()
	var r engine.ReadResult
	var err error
	c.run(func(e *engine.Env) {
		r, err = e.ReadDisk(context.Background(), engine.ReadParams{TextDocument: engine.TextDocument{URI: c.uri}, Range: &ledger.Range{Start: a, End: b}})
	})
	if err != nil || !r.OK {
		c.t.Fatalf("read %d-%d: %v %+v", a, b, err, r.Outcome)
	}
	return r.Content
}

// edit applies one op by ref; it returns the answer's window, or the
// refusal's kind.
func (c *calls) edit(op, ref, content string) (window string, refused string) {
	c.t.Helper()
	ed := map[string]string{"type": op, "ref": ref}
	if op != "delete_line" {
		ed["new_content"] = content
	}
	raw, _ := json.Marshal([]map[string]string{ed})
	var res engine.EditResult
	var err error
	c.run(func(e *engine.Env) {
		res, err = e.Edit(context.Background(), engine.EditParams{TextDocument: engine.TextDocument{URI: c.uri}, Edits: raw})
	})
	if err != nil {
		c.t.Fatalf("%s %s: %v", op, ref, err)
	}
	if !res.OK {
		return "", string(res.Error) + ": " + res.Message
	}
	return res.Window, ""
}

// mustEdit is edit that must apply.
func (c *calls) mustEdit(op, ref, content string) string {
	c.t.Helper()
	w, refused := c.edit(op, ref, content)
	if refused != "" {
		c.t.Fatalf("%s by %s refused: %s", op, ref, refused)
	}
	return w
}

// refAt returns the ref of line n in an answer's hashline lines.
func refAt(t testing.TB, lines string, n int) string {
	t.Helper()
	for _, l := range strings.Split(lines, "\n") {
		if ref, _, ok := strings.Cut(l, "|"); ok && strings.HasPrefix(ref, fmt.Sprintf("%d:", n)) {
			return ref
		}
	}
	t.Fatalf("line %d is not in\n%s", n, lines)
	return ""
}

// both runs a sequence in one long-lived Env and in an Env per call.
func both(t *testing.T, f func(t *testing.T, c *calls)) {
	for _, long := range []bool{true, false} {
		name := "an Env per call"
		if long {
			name = "one long-lived Env"
		}
		t.Run(name, func(t *testing.T) { f(t, newCalls(t, "", long)) })
	}
}

// statKeyed skips where ReadDisk is Read.
func statKeyed(t *testing.T) {
	if !engine.StatKeyed(t) {
		t.Skip("ReadDisk is Read here: the platform gives no change time and file identity to key its stat cache on")
	}
	t.Cleanup(engine.SetRacyAge(-time.Hour))
}

// read reads lines a-b building the document (Read).
func (c *calls) read(a, b int) string {
	c.t.Helper()
	var r engine.ReadResult
	var err error
	c.run(func(e *engine.Env) {
		r, err = e.Read(context.Background(), engine.ReadParams{TextDocument: engine.TextDocument{URI: c.uri}, Range: &ledger.Range{Start: a, End: b}})
	})
	if err != nil || !r.OK {
		c.t.Fatalf("read %d-%d: %v %+v", a, b, err, r.Outcome)
	}
	return r.Content
}

// TestRangeReadFromDiskThenEdits: a range read from the disk (the CLI's
// streamed read), then edits, each by a ref of the answer before, and
// range reads again between them: every edit applies, in one process as in
// one process a call. (The refs of a read from the disk were taken for a
// view whose text was unknown, which may have changed: stale.)
func TestRangeReadFromDiskThenEdits(t *testing.T) {
	statKeyed(t)
	t.Run("rewrites", func(t *testing.T) {
		both(t, func(t *testing.T, c *calls) {
			c.write("a\nb\nc\n")
			c.readDisk(1, 3)
			w := c.mustEdit("replace_line", refAt(t, c.readDisk(2, 2), 2), "B")
			w = c.mustEdit("replace_line", refAt(t, c.readDisk(2, 2), 2), "b2")
			c.mustEdit("replace_line", refAt(t, w, 2), "b3")
		})
	})
	t.Run("a deletion", func(t *testing.T) {
		both(t, func(t *testing.T, c *calls) {
			c.write("a\nb\nc\n")
			c.readDisk(1, 3)
			w := c.mustEdit("delete_line", "1:"+hashOf("a"), "")
			// Line 1 is b now: the ref names it in the window, and in the read
			// renumbered by the agent's own deletion.
			c.mustEdit("replace_line", refAt(t, w, 1), "B")
		})
	})
}

// TestLineEditedBackToItsText: a line edited to another text and back (A,
// B, A), each edit by the ref its answer before showed, then once more:
// the last edit applies. The line the first read showed was changed by the
// session itself and holds its text again where it was.
func TestLineEditedBackToItsText(t *testing.T) {
	both(t, func(t *testing.T, c *calls) {
		c.write("x\nA\ny\n")
		ref := refAt(t, c.read(1, 3), 2)
		for _, next := range []string{"B", "A", "C", "A", "A2"} {
			ref = refAt(t, c.mustEdit("replace_line", ref, next), 2)
		}
	})
}

// TestManyEditsOfOneLine: one line of a 200,000-line file edited 40 times
// (20 rewrites of the line, then 20 deletions of the line there)
// in a row in one process, each edit by the ref the answer before showed,
// the line read first in a process of its own (its reads restored from the
// database into the process that edits) or in that process; the same
// sequence in a process a call (on a smaller file: each call loads it).
// Every edit applies. (The revision the reads were restored at was kept
// for 16 revisions; then the ref counted as from a text that may have
// changed.)
func TestManyEditsOfOneLine(t *testing.T) {
	statKeyed(t)
	for _, readFirst := range []string{"in a process of its own", "in the process that edits"} {
		t.Run("read "+readFirst, func(t *testing.T) {
			both(t, func(t *testing.T, c *calls) {
				lines := 200000
				if raceOn {
					lines = 20000
				}
				if c.env == nil {
					lines = 2000
				}
				var b strings.Builder
				for i := range lines {
					fmt.Fprintf(&b, "line %d of a large file, with some text\n", i+1)
				}
				c.write(b.String())
				n := lines / 2
				long := c.env
				if readFirst == "in a process of its own" {
					c.env = nil
				}
				ref := refAt(t, c.readDisk(n, n), n)
				c.env = long
				for i := range 40 {
					// Rewritten, or deleted: the next line is then line n.
					op := []string{"replace_line", "delete_line"}[i/20]
					ref = refAt(t, c.mustEdit(op, ref, fmt.Sprintf("edit %d", i)), n)
				}
			})
		})
	}
}

// TestLineChangedByOthersAfterRangeRead: a range read from the disk, then
// another program changes a line the read showed: an edit of that line by
// its new ref (one the session never saw) is refused, in one process as in
// one process a call, whether or not the file is read again (another range)
// in between.
func TestLineChangedByOthersAfterRangeRead(t *testing.T) {
	statKeyed(t)
	for _, again := range []bool{false, true} {
		t.Run(fmt.Sprintf("read again %v", again), func(t *testing.T) {
			both(t, func(t *testing.T, c *calls) {
				c.write("a\nb\nc\n")
				c.readDisk(1, 3)
				c.write("a\nX\nc\n")
				if again {
					c.readDisk(1, 1)
				}
				if _, refused := c.edit("replace_line", "2:"+hashOf("X"), "Y"); !strings.HasPrefix(refused, "stale_range") {
					t.Fatalf("an edit of a line changed by another program since it was read: %q, want stale_range", refused)
				}
			})
		})
	}
}
