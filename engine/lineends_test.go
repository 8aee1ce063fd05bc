package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestLineBreakChange: a hunk or block whose old lines carry the file's own
// line breaks, line for line, is byte-exact: a change of line breaks alone
// is made, in every dialect, both ways. One whose old lines do not (an
// agent that dropped or added the CR on every line) writes its new lines
// with the file's dominant line break; when that changes nothing, the
// answer says so and is not "applied".
func TestLineBreakChange(t *testing.T) {
	const lf, crlf = "x\ny\n", "x\r\ny\n"
	unified := func(old, new string) string {
		return "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-" + old + "+" + new + " y\n"
	}
	udiff := func(old, new string) string {
		return "--- a/f.txt\n+++ b/f.txt\n@@ ... @@\n-" + old + "+" + new + " y\n"
	}
	v4a := func(old, new string) string {
		return "*** Begin Patch\n*** Update File: f.txt\n@@\n-" + old + "+" + new + " y\n*** End Patch\n"
	}
	blocks := func(old, new string) string {
		return "f.txt\n<<<<<<< SEARCH\n" + old + "y\n=======\n" + new + "y\n>>>>>>> REPLACE\n"
	}
	type tc struct {
		name, before, text, want string
		unchanged                bool
	}
	var cases []tc
	for _, d := range []struct {
		name string
		make func(old, new string) string
	}{{"unified", unified}, {"udiff", udiff}, {"v4a", v4a}, {"blocks", blocks}} {
		cases = append(cases,
			tc{d.name + ": LF to CRLF", lf, d.make("x\n", "x\r\n"), crlf, false},
			tc{d.name + ": CRLF to LF", crlf, d.make("x\r\n", "x\n"), lf, false},
			// The CR dropped on every line: the file's line break.
			tc{d.name + ": CRLF file, LF patch", "a\r\nx\r\ny\r\n", d.make("x\n", "X\n"), "a\r\nX\r\ny\r\n", false},
			// Its old lines are not the file's: no change to make.
			tc{d.name + ": CRLF file, LF old lines, CRLF new line", "x\r\ny\r\n", d.make("x\n", "x\r\n"), "x\r\ny\r\n", true},
		)
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "f.txt")
			os.WriteFile(p, []byte(c.before), 0o644)
			env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
			defer env.Close(ctx)
			cl := engine.Caller{Session: "s"}
			env.Read(ctx, engine.ReadParams{Caller: cl, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(p))}})
			var ok bool
			var msg, status string
			if strings.HasPrefix(c.name, "blocks") {
				r, _ := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: cl, Text: c.text})
				ok, msg = r.OK, r.Message
				if len(r.Blocks) == 1 {
					status, msg = r.Blocks[0].Status, msg+" / "+r.Blocks[0].Message
				}
			} else {
				r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: cl, Text: c.text})
				ok, msg = r.OK, r.Message
				if len(r.Files) == 1 {
					status, msg = r.Files[0].Status, msg+" / "+r.Files[0].Message
				}
			}
			b, _ := os.ReadFile(p)
			if !ok || string(b) != c.want {
				t.Fatalf("ok=%v %s: %q, want %q", ok, msg, b, c.want)
			}
			if c.unchanged != (status == "unchanged") || c.unchanged != strings.Contains(msg, "changes nothing") || strings.Contains(msg, "Applied") == c.unchanged {
				t.Fatalf("unchanged=%v, but status %q: %s", c.unchanged, status, msg)
			}
		})
	}
}

// TestNewFileLineBreaks: a new file's line breaks follow one rule whatever
// makes it (a patch, an edit block, write's create): the lines' own when
// one of them carries a CR, else .editorconfig's end_of_line, else "\n".
func TestNewFileLineBreaks(t *testing.T) {
	ctx := context.Background()
	makers := map[string]func(env *engine.Env, c engine.Caller, root, name, body string) bool{
		"patch": func(env *engine.Env, c engine.Caller, root, name, body string) bool {
			text := "--- /dev/null\n+++ b/" + name + "\n@@ -0,0 +1,2 @@\n+" + strings.Replace(body, "\n", "\n+", 1)
			r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: text})
			return r.OK
		},
		"blocks": func(env *engine.Env, c engine.Caller, root, name, body string) bool {
			r, _ := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: c, Text: name + "\n<<<<<<< SEARCH\n=======\n" + body + ">>>>>>> REPLACE\n"})
			return r.OK
		},
		"write": func(env *engine.Env, c engine.Caller, root, name, body string) bool {
			r, _ := env.Write(ctx, engine.WriteParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, name)))}, Mode: "create", Content: &body})
			return r.OK
		},
	}
	for maker, mk := range makers {
		for _, tc := range []struct{ name, body, want string }{
			{"run.cmd", "a\nb\n", "a\r\nb\r\n"},     // .editorconfig: crlf
			{"run.cmd", "a\r\nb\n", "a\r\nb\n"},     // the lines' own
			{"main.py", "a\nb\n", "a\nb\n"},         // nothing declared
			{"main.py", "a\r\nb\r\n", "a\r\nb\r\n"}, // the lines' own
		} {
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, ".editorconfig"), []byte("root = true\n[*.cmd]\nend_of_line = crlf\n"), 0o644)
			env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
			ok := mk(env, engine.Caller{Session: "s"}, root, tc.name, tc.body)
			if b, _ := os.ReadFile(filepath.Join(root, tc.name)); !ok || string(b) != tc.want {
				t.Errorf("%s %s %q: ok=%v %q, want %q", maker, tc.name, tc.body, ok, b, tc.want)
			}
			env.Close(ctx)
		}
	}
}
