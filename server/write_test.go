package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

func write(t *testing.T, e *lsptest.Editor, u, mode, content string, extra map[string]any) engine.WriteResult {
	t.Helper()
	p := map[string]any{"textDocument": map[string]string{"uri": u}, "mode": mode, "content": content}
	for k, v := range extra {
		p[k] = v
	}
	var res engine.WriteResult
	if err := e.Call("sightline/write", p, &res); err != nil {
		t.Fatalf("sightline/write: %v", err)
	}
	return res
}

func TestWriteModes(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	e, root := start(t, map[string]string{
		"crlf.txt":  "alpha\r\nbeta\r\ngamma\r\n",
		"noeol.txt": "one\ntwo",
		"long.txt":  long.String(),
		"dup.txt":   "x = 1\ny = 2\nx = 1\n",
		"bin.dat":   "\x00\x01",
	}, lsptest.Options{})
	disk := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(root, name))
		return string(b)
	}

	// create: new folders, refuses an existing file, model_authored.
	res := write(t, e, fileURI(root, "pkg/new/a.go"), "create", "package a\n", nil)
	if !res.OK || disk("pkg/new/a.go") != "package a\n" || res.Ledger.State != ledger.ModelAuthored || !strings.Contains(res.Diff, "+package a") {
		t.Fatalf("create: %+v", res)
	}
	if res := write(t, e, fileURI(root, "pkg/new/a.go"), "create", "x", nil); res.OK || res.Error != "exists" {
		t.Fatalf("create over a file: %+v", res.Outcome)
	}
	// The session wrote it: it may edit it without reading.
	if res := write(t, e, fileURI(root, "pkg/new/a.go"), "append", "func A() {}\n", nil); !res.OK || disk("pkg/new/a.go") != "package a\nfunc A() {}\n" {
		t.Fatalf("append to own file: %+v %q", res.Outcome, disk("pkg/new/a.go"))
	}

	// edit: old_text required, unique, found; the file's CRLF kept.
	u := fileURI(root, "crlf.txt")
	read(t, e, u, nil, nil)
	if res := write(t, e, u, "edit", "B", nil); res.OK || res.Error != "invalid_edit" || !strings.Contains(res.Message, "append") || !strings.Contains(res.Message, "overwrite") {
		t.Fatalf("edit without old_text: %+v", res.Outcome)
	}
	if res := write(t, e, u, "edit", "BETA\nBETA2", map[string]any{"old_text": "beta\n"}); !res.OK || disk("crlf.txt") != "alpha\r\nBETA\r\nBETA2gamma\r\n" {
		t.Fatalf("edit in a CRLF file: %+v %q", res.Outcome, disk("crlf.txt"))
	}
	if res := write(t, e, u, "edit", "z", map[string]any{"old_text": "alpah"}); res.OK || res.Error != "no_match" || len(res.Nearest) == 0 || !strings.Contains(res.Nearest[0], "alpha") {
		t.Fatalf("no_match: %+v %v", res.Outcome, res.Nearest)
	}
	ud := fileURI(root, "dup.txt")
	read(t, e, ud, nil, nil)
	if res := write(t, e, ud, "edit", "x = 3", map[string]any{"old_text": "x = 1"}); res.OK || res.Error != "ambiguous_match" || fmt.Sprint(res.Matches) != "[1 3]" {
		t.Fatalf("ambiguous_match: %+v %v", res.Outcome, res.Matches)
	}
	if disk("dup.txt") != "x = 1\ny = 2\nx = 1\n" {
		t.Fatal("refused write changed the file")
	}

	// dramatic reduction: 30 lines cut to 5.
	ul := fileURI(root, "long.txt")
	read(t, e, ul, nil, nil)
	old := strings.Join(strings.Split(long.String(), "\n")[2:28], "\n")
	if res := write(t, e, ul, "edit", "", map[string]any{"old_text": old}); res.OK || res.Error != "dramatic_reduction" || !strings.Contains(res.Message, "overwrite") {
		t.Fatalf("dramatic_reduction: %+v", res.Outcome)
	}

	// append adds the separator only when needed.
	un := fileURI(root, "noeol.txt")
	read(t, e, un, nil, nil)
	if res := write(t, e, un, "append", "three\n", nil); !res.OK || disk("noeol.txt") != "one\ntwo\nthree\n" {
		t.Fatalf("append: %+v %q", res.Outcome, disk("noeol.txt"))
	}

	// overwrite needs the whole file read; expectedVersion is compare-and-swap.
	os.WriteFile(filepath.Join(root, "part.txt"), []byte(long.String()), 0o644)
	up := fileURI(root, "part.txt")
	read(t, e, up, &ledger.Range{Start: 1, End: 10}, nil)
	if res := write(t, e, up, "overwrite", "new\n", nil); res.OK || res.Error != "unread_range" || len(res.Unread) != 1 || res.Unread[0] != (ledger.Range{Start: 11, End: 30}) {
		t.Fatalf("overwrite of a partly read file: %+v", res.Outcome)
	}
	full := read(t, e, up, nil, nil)
	if res := write(t, e, up, "overwrite", "new\n", map[string]any{"expectedVersion": "sha256:00"}); res.OK || res.Error != "file_changed" {
		t.Fatalf("expectedVersion mismatch: %+v", res.Outcome)
	}
	if res := write(t, e, up, "overwrite", "new\n", map[string]any{"expectedVersion": full.FileHash}); !res.OK || disk("part.txt") != "new\n" {
		t.Fatalf("overwrite: %+v", res.Outcome)
	}

	// binary target and binary content are refused; dry run writes nothing.
	if res := write(t, e, fileURI(root, "bin.dat"), "append", "x", nil); res.OK || res.Error != "binary" {
		t.Fatalf("binary target: %+v", res.Outcome)
	}
	if res := write(t, e, fileURI(root, "c.txt"), "create", "a\x00b", nil); res.OK || res.Error != "binary" {
		t.Fatalf("binary content: %+v", res.Outcome)
	}
	if res := write(t, e, fileURI(root, "d.txt"), "create", "dry\n", map[string]any{"dryRun": true}); !res.OK || !res.DryRun || res.Diff == "" {
		t.Fatalf("dry run: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "d.txt")); err == nil {
		t.Fatal("dry run created the file")
	}
}

// TestWriteOpenBufferGoesThroughEditor: a write to an open document reaches
// the editor's buffer as a workspace edit; the disk is untouched.
func TestWriteOpenBufferGoesThroughEditor(t *testing.T) {
	src := "a\nb\n"
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{})
	u := fileURI(root, "x.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	res := write(t, e, u, "edit", "B", map[string]any{"old_text": "b"})
	if !res.OK || e.Buffer(u) != "a\nB\n" || res.Version == nil || *res.Version != 2 {
		t.Fatalf("write through editor: %+v %q", res.Outcome, e.Buffer(u))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "x.txt")); string(b) != src {
		t.Fatalf("disk written: %q", b)
	}
}
