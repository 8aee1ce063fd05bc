package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestTextNotUTF8: text sent to sightline is UTF-8, whatever the file's
// encoding: a patch, an edit block or a write made of a legacy file's raw
// bytes (or carrying U+FFFD where a tool replaced them) is refused saying
// so, naming the file's encoding and what to send; nothing is written. A
// UTF-8 patch of the same file applies, and the file stays in its encoding.
func TestTextNotUTF8(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		".editorconfig": "root = true\n[*.txt]\ncharset = latin1\n[*.sjis]\ncharset = shift_jis\n",
		"m.txt":         "Caf\xe9 au lait\n",
		"j.sjis":        "\x93\xfa\x96\x7b\n", // 日本
		"u.md":          "plain\n",
	}
	root := t.TempDir()
	for n, b := range files {
		os.WriteFile(filepath.Join(root, n), []byte(b), 0o644)
	}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	c := engine.Caller{Session: "s"}
	uri := func(n string) engine.TextDocument {
		return engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, n)))}
	}
	for n := range files {
		env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: uri(n)})
	}
	patch := func(text string) engine.Outcome {
		r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: text})
		return r.Outcome
	}
	write := func(name, mode, old, content string) engine.Outcome {
		p := engine.WriteParams{Caller: c, TextDocument: uri(name), Mode: mode, Content: &content}
		if mode == "edit" {
			p.OldText = &old
		}
		r, _ := env.Write(ctx, p)
		return r.Outcome
	}
	cases := []struct {
		name, charset string
		run           func() engine.Outcome
	}{
		{"patch of Latin-1 bytes", "ISO-8859-1", func() engine.Outcome {
			return patch("--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-Caf\xe9 au lait\n+Caf\xe9 noir\n")
		}},
		{"patch with U+FFFD for a Latin-1 byte", "ISO-8859-1", func() engine.Outcome {
			return patch("--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-Caf\uFFFD au lait\n+Caf\uFFFD noir\n")
		}},
		{"patch adding Latin-1 bytes only", "ISO-8859-1", func() engine.Outcome {
			return patch("--- a/m.txt\n+++ b/m.txt\n@@ -1 +1,2 @@\n Café au lait\n+th\xe9\n")
		}},
		{"patch of Shift_JIS bytes", "Shift_JIS", func() engine.Outcome {
			return patch("*** Begin Patch\n*** Update File: j.sjis\n@@\n-\x93\xfa\x96\x7b\n+\x93\xfa\n*** End Patch\n")
		}},
		{"edit block of Latin-1 bytes", "ISO-8859-1", func() engine.Outcome {
			r, _ := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: c, Text: "m.txt\n<<<<<<< SEARCH\nCaf\xe9 au lait\n=======\nCaf\xe9 noir\n>>>>>>> REPLACE\n"})
			if !r.OK && len(r.Blocks) == 1 {
				r.Error, r.Message = r.Blocks[0].Error, r.Blocks[0].Message
			}
			return r.Outcome
		}},
		{"write edit of Latin-1 bytes", "ISO-8859-1", func() engine.Outcome { return write("m.txt", "edit", "Caf\xe9", "Tea") }},
		{"write append of Latin-1 bytes", "ISO-8859-1", func() engine.Outcome { return write("m.txt", "append", "", "th\xe9\n") }},
		{"write append of Latin-1 bytes to a UTF-8 file", "UTF-8", func() engine.Outcome { return write("u.md", "append", "", "th\xe9\n") }},
		{"write create of Latin-1 bytes", "UTF-8", func() engine.Outcome { return write("new.md", "create", "", "th\xe9\n") }},
		{"patch adding a file of Latin-1 bytes", "ISO-8859-1", func() engine.Outcome {
			return patch("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+th\xe9\n")
		}},
	}
	for _, cs := range cases {
		t.Run(cs.name, func(t *testing.T) {
			o := cs.run()
			if o.OK || o.Error != result.InvalidEdit || !strings.Contains(o.Message, "not UTF-8") || !strings.Contains(o.Message, cs.charset) {
				t.Fatalf("%+v", o)
			}
			t.Log(o.Message)
			for n, b := range files {
				if got, _ := os.ReadFile(filepath.Join(root, n)); string(got) != b {
					t.Fatalf("%s written: %q", n, got)
				}
			}
			for _, n := range []string{"new.md", "n.txt"} {
				if _, err := os.Stat(filepath.Join(root, n)); err == nil {
					t.Fatalf("%s created", n)
				}
			}
		})
	}
	// In UTF-8, as sightline shows the file: applied, and the file stays
	// Latin-1.
	if o := patch("--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-Café au lait\n+Café noir\n"); !o.OK {
		t.Fatalf("UTF-8 patch: %+v", o)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "m.txt")); string(got) != "Caf\xe9 noir\n" {
		t.Fatalf("m.txt: %q", got)
	}
}
