package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

// The encoding fixtures (testdata/encodings, made with iconv by make.sh):
// each file's line 1 decoded, the new line 3 its .edited.txt holds, and a
// character the encoding cannot represent ("" for UTF-16, which has all).
var encodingFixtures = []struct {
	file, line1, line3, foreign string
}{
	{"latin1.txt", "café crème", "déjà vu", "→"},
	{"cp1252.txt", "“quoted” €5", "„low“ ‰", "→"},
	{"sjis.txt", "日本語", "編集済み", "😀"},
	{"gbk.txt", "中文", "编辑过", "😀"},
	{"utf16le.txt", "héllo", "ünïcode 😀", ""},
	{"utf16be.txt", "héllo", "ünïcode 😀", ""},
}

// encodingWorkspace copies the fixtures into a new workspace whose
// .editorconfig declares Latin-1, Shift_JIS and GBK for their files, and
// whose settings list windows-1252 as the encoding to try for files that
// are not UTF-8 (UTF-16 is found by its byte-order mark).
func encodingWorkspace(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	for _, f := range encodingFixtures {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "encodings", f.file))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f.file), data, 0o644)
	}
	os.WriteFile(filepath.Join(dir, ".editorconfig"), []byte("root = true\n\n[latin1.txt]\ncharset = latin1\n\n[sjis.txt]\ncharset = shift_jis\n\n[gbk.txt]\ncharset = gbk\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".sightline.json"), []byte(`{"encodings": ["windows-1252"]}`), 0o644)
}

func fixtureBytes(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "encodings", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// editLine3 is the hashline edit that replaces line 3 ("plain line") of a
// fixture with text.
func editLine3(text string) string {
	b, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": "3:" + hashline.Hash("plain line"), "new_content": text}})
	return string(b)
}

// checkEncodedEdit: after the edit the file is its .edited.txt fixture byte
// for byte (iconv's bytes for the new line; every other byte, the mark and
// the line endings included, as it was); after the refused edit the file is
// unchanged.
func checkFile(t *testing.T, dir, file, want string) {
	t.Helper()
	got, _ := os.ReadFile(filepath.Join(dir, file))
	if w := fixtureBytes(t, want); !bytes.Equal(got, w) {
		t.Errorf("%s: bytes\n% x\nwant (%s)\n% x", file, got, want, w)
	}
}

func edited(file string) string { return strings.TrimSuffix(file, ".txt") + ".edited.txt" }

// TestEncodingsCLI: files in Latin-1, windows-1252, Shift_JIS, GBK and
// UTF-16 are read as text and edited in their own encoding through the
// command line; an edit bringing a character the encoding lacks is refused
// (unrepresentable, naming it and its line) and writes nothing.
func TestEncodingsCLI(t *testing.T) {
	c := newCLI(t, nil)
	encodingWorkspace(t, c.dir)
	for _, f := range encodingFixtures {
		out, errOut, code := c.run("", "read", f.file, "--json")
		var rr struct {
			OK       bool   `json:"ok"`
			Content  string `json:"content"`
			FileHash string `json:"fileHash"`
		}
		json.Unmarshal([]byte(out), &rr)
		if code != 0 || !rr.OK || !strings.Contains(rr.Content, "1:"+hashline.Hash(f.line1)+"|"+f.line1+"\n") {
			t.Fatalf("read %s: %d %s %s", f.file, code, out, errOut)
		}
		// The file hash is of the bytes on disk, and an edit can be made
		// compare-and-swap against it.
		if want := fmt.Sprintf("sha256:%x", sha256.Sum256(fixtureBytes(t, f.file))); rr.FileHash != want {
			t.Fatalf("%s: fileHash %s, want %s", f.file, rr.FileHash, want)
		}
		if f.foreign != "" {
			_, errOut, code = c.run(editLine3("a "+f.foreign+" b"), "edit", f.file, "--edits", "-")
			if code != 1 || !strings.Contains(errOut, "unrepresentable") || !strings.Contains(errOut, "Line 3") || !strings.Contains(errOut, f.foreign) {
				t.Errorf("edit %s with %s: %d %s", f.file, f.foreign, code, errOut)
			}
			checkFile(t, c.dir, f.file, f.file)
		}
		out, errOut, code = c.run(editLine3(f.line3), "edit", f.file, "--edits", "-", "--file-hash", rr.FileHash)
		if code != 0 {
			t.Fatalf("edit %s: %d %s %s", f.file, code, out, errOut)
		}
		checkFile(t, c.dir, f.file, edited(f.file))
	}
}

// TestEncodingsLSP: the same through the language server, for files the
// editor has not opened (written on disk).
func TestEncodingsLSP(t *testing.T) {
	root := t.TempDir()
	encodingWorkspace(t, root)
	ed := lsptest.Start(t, lsptest.Options{Root: root, Server: server.Options{StateDir: t.TempDir()}})
	for _, f := range encodingFixtures {
		doc := map[string]string{"uri": string(uri.File(filepath.Join(root, f.file)))}
		var rr struct {
			OK      bool   `json:"ok"`
			Content string `json:"content"`
			Message string `json:"message"`
		}
		if err := ed.Call("sightline/read", map[string]any{"textDocument": doc}, &rr); err != nil || !rr.OK || !strings.Contains(rr.Content, "|"+f.line1+"\n") {
			t.Fatalf("read %s: %v %+v", f.file, err, rr)
		}
		var er struct {
			OK      bool   `json:"ok"`
			Error   string `json:"error"`
			Message string `json:"message"`
			Applied bool   `json:"applied"`
		}
		if f.foreign != "" {
			if err := ed.Call("sightline/edit", map[string]any{"textDocument": doc, "edits": json.RawMessage(editLine3(f.foreign))}, &er); err != nil || er.OK || er.Error != "unrepresentable" {
				t.Errorf("edit %s with %s: %v %+v", f.file, f.foreign, err, er)
			}
			checkFile(t, root, f.file, f.file)
		}
		er = struct {
			OK      bool   `json:"ok"`
			Error   string `json:"error"`
			Message string `json:"message"`
			Applied bool   `json:"applied"`
		}{}
		if err := ed.Call("sightline/edit", map[string]any{"textDocument": doc, "edits": json.RawMessage(editLine3(f.line3))}, &er); err != nil || !er.OK || !er.Applied {
			t.Fatalf("edit %s: %v %+v", f.file, err, er)
		}
		checkFile(t, root, f.file, edited(f.file))
	}
}

// TestEncodingsMCP: the same through the MCP tools.
func TestEncodingsMCP(t *testing.T) {
	c := newCLI(t, nil)
	c.env = append(c.env, "SIGHTLINE_NO_BRIDGE=1")
	encodingWorkspace(t, c.dir)
	s := mcpSession(t, c)
	for _, f := range encodingFixtures {
		text, isErr := callText(t, s, "sightline_read", map[string]any{"path": f.file})
		if isErr || !strings.Contains(text, "|"+f.line1+"\n") {
			t.Fatalf("read %s: %s", f.file, text)
		}
		var edits []map[string]string
		if f.foreign != "" {
			json.Unmarshal([]byte(editLine3(f.foreign)), &edits)
			text, isErr = callText(t, s, "sightline_edit", map[string]any{"path": f.file, "edits": edits})
			if !isErr || !strings.Contains(text, "unrepresentable") {
				t.Errorf("edit %s with %s: %s", f.file, f.foreign, text)
			}
			checkFile(t, c.dir, f.file, f.file)
		}
		json.Unmarshal([]byte(editLine3(f.line3)), &edits)
		if text, isErr = callText(t, s, "sightline_edit", map[string]any{"path": f.file, "edits": edits}); isErr {
			t.Fatalf("edit %s: %s", f.file, text)
		}
		checkFile(t, c.dir, f.file, edited(f.file))
	}
}

// TestEncodingDeclaredWins: a file whose .editorconfig declares Latin-1 is
// read as Latin-1 even when its bytes are also valid UTF-8 (as the editor
// shows it), by every read path of the command line, and a character
// written into it is written in Latin-1.
func TestEncodingDeclaredWins(t *testing.T) {
	c := newCLI(t, map[string]string{
		".editorconfig": "root = true\n[*.txt]\ncharset = latin1\n",
		"a.txt":         "caf\xc3\xa9\nascii\n",
	})
	out, errOut, code := c.run("", "read", "a.txt")
	if code != 0 || !strings.Contains(out, "|cafÃ©\n") {
		t.Fatalf("read: %d %s %s", code, out, errOut)
	}
	b, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": "2:" + hashline.Hash("ascii"), "new_content": "naïve"}})
	if out, errOut, code = c.run(string(b), "edit", "a.txt", "--edits", "-"); code != 0 {
		t.Fatalf("edit: %d %s %s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "a.txt")); string(got) != "caf\xc3\xa9\nna\xefve\n" {
		t.Fatalf("written: %q", got)
	}
}

// TestEncodingsEveryWrite: edit blocks, a patch and the write modes (the
// multi-file write and the one-file write) write a Latin-1 and a UTF-16
// file in their encodings too, every byte they did not change kept.
func TestEncodingsEveryWrite(t *testing.T) {
	c := newCLI(t, nil)
	encodingWorkspace(t, c.dir)
	for _, f := range []string{"latin1.txt", "utf16le.txt"} {
		if _, errOut, code := c.run("", "read", f); code != 0 {
			t.Fatalf("read %s: %s", f, errOut)
		}
	}
	le := func(s string) string { // UTF-16LE of s (ASCII and Latin-1 only)
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return string(b)
	}
	steps := []struct {
		what, file, stdin string
		args              []string
		want              string // the file's bytes after the step
	}{
		{"edit block", "latin1.txt", "latin1.txt\n<<<< EDIT\nnaïve\n==== REPLACE\nnaïveté\n>>>> EDIT END\n", []string{"apply"},
			"caf\xe9 cr\xe8me\nna\xefvet\xe9\r\nplain line\n"},
		{"patch", "latin1.txt", "--- a/latin1.txt\n+++ b/latin1.txt\n@@ -1,2 +1,2 @@\n-café crème\n+café noir\n naïveté\n", []string{"patch"},
			"caf\xe9 noir\nna\xefvet\xe9\r\nplain line\n"},
		{"append", "latin1.txt", "fin ½\n", []string{"write", "latin1.txt", "--mode", "append"},
			"caf\xe9 noir\nna\xefvet\xe9\r\nplain line\nfin \xbd\n"},
		{"edit block", "utf16le.txt", "utf16le.txt\n<<<< EDIT\nwörld\n==== REPLACE\nwörld!\n>>>> EDIT END\n", []string{"apply"},
			"\xff\xfe" + le("héllo\nwörld!\r\nplain line\n")},
		{"write edit", "utf16le.txt", "hé", []string{"write", "utf16le.txt", "--mode", "edit", "--old-text", "héllo"},
			"\xff\xfe" + le("hé\nwörld!\r\nplain line\n")},
	}
	for _, s := range steps {
		if out, errOut, code := c.run(s.stdin, s.args...); code != 0 {
			t.Fatalf("%s of %s: %d %s %s", s.what, s.file, code, out, errOut)
		}
		if got, _ := os.ReadFile(filepath.Join(c.dir, s.file)); string(got) != s.want {
			t.Fatalf("%s of %s: bytes %q, want %q", s.what, s.file, got, s.want)
		}
	}
	// A block bringing a character Latin-1 lacks is refused before any
	// file of the batch is written.
	before, _ := os.ReadFile(filepath.Join(c.dir, "latin1.txt"))
	out, _, code := c.run("utf16le.txt\n<<<< EDIT\nplain line\n==== REPLACE\nnew line\n>>>> EDIT END\nlatin1.txt\n<<<< EDIT\nplain line\n==== REPLACE\n→\n>>>> EDIT END\n", "apply")
	if code != 1 || !strings.Contains(out, "unrepresentable") && !strings.Contains(out, "cannot represent") {
		t.Fatalf("apply with →: %d %s", code, out)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "latin1.txt")); !bytes.Equal(got, before) {
		t.Fatalf("latin1.txt changed: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "utf16le.txt")); string(got) != "\xff\xfe"+le("hé\nwörld!\r\nplain line\n") {
		t.Fatalf("utf16le.txt changed: %q", got)
	}
}

// TestEncodingsLSPOpenBuffer: an editor buffer of a Latin-1 file is its
// Unicode text (LSP reports no encoding); the file keeps the encoding it
// was read in, so an edit bringing a character Latin-1 lacks is refused
// for the buffer too, an edit through the editor is applied to the buffer,
// and one written to disk (applyVia disk, the buffer saved) is Latin-1.
func TestEncodingsLSPOpenBuffer(t *testing.T) {
	root := t.TempDir()
	encodingWorkspace(t, root)
	ed := lsptest.Start(t, lsptest.Options{Root: root, Server: server.Options{StateDir: t.TempDir()}})
	u := string(uri.File(filepath.Join(root, "latin1.txt")))
	doc := map[string]string{"uri": u}
	type answer struct {
		OK      bool   `json:"ok"`
		Error   string `json:"error"`
		Message string `json:"message"`
		Applied bool   `json:"applied"`
	}
	var rr struct {
		OK bool `json:"ok"`
	}
	if err := ed.Call("sightline/read", map[string]any{"textDocument": doc}, &rr); err != nil || !rr.OK {
		t.Fatalf("read: %v", err)
	}
	ed.Open(u, "plaintext", "café crème\nnaïve\r\nplain line\n")
	var er answer
	if err := ed.Call("sightline/edit", map[string]any{"textDocument": doc, "edits": json.RawMessage(editLine3("→"))}, &er); err != nil || er.Error != "unrepresentable" {
		t.Fatalf("edit with →: %v %+v", err, er)
	}
	er = answer{}
	if err := ed.Call("sightline/edit", map[string]any{"textDocument": doc, "edits": json.RawMessage(editLine3("à bientôt"))}, &er); err != nil || !er.Applied {
		t.Fatalf("edit through the editor: %v %+v", err, er)
	}
	if got := ed.Buffer(u); got != "café crème\nnaïve\r\nà bientôt\n" {
		t.Fatalf("buffer %q", got)
	}
	checkFile(t, root, "latin1.txt", "latin1.txt") // the editor has not saved
	// Saved (the disk holds the buffer's text), then written on disk.
	os.WriteFile(filepath.Join(root, "latin1.txt"), []byte("caf\xe9 cr\xe8me\nna\xefve\r\n\xe0 bient\xf4t\n"), 0o644)
	ed.SetSettings(json.RawMessage(`{"applyVia":"disk"}`))
	if err := ed.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{"applyVia": "disk"}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": "3:" + hashline.Hash("à bientôt"), "new_content": "déjà vu"}})
	er = answer{}
	if err := ed.Call("sightline/edit", map[string]any{"textDocument": doc, "edits": json.RawMessage(b)}, &er); err != nil || !er.Applied {
		t.Fatalf("edit on disk: %v %+v", err, er)
	}
	checkFile(t, root, "latin1.txt", "latin1.edited.txt")
}

// TestCreateInDeclaredCharset: a new file is written in the charset its
// .editorconfig declares, whether a write creates it or a patch adds it;
// a character the charset lacks refuses the create, and nothing is written.
func TestCreateInDeclaredCharset(t *testing.T) {
	c := newCLI(t, map[string]string{
		".editorconfig": "root = true\n[*.txt]\ncharset = latin1\n",
	})
	if out, errOut, code := c.run("café\n", "write", "new.txt", "--mode", "create"); code != 0 {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "new.txt")); string(got) != "caf\xe9\n" {
		t.Fatalf("created: %q, want Latin-1", got)
	}
	patch := "--- /dev/null\n+++ b/added.txt\n@@ -0,0 +1 @@\n+naïve\n"
	if out, errOut, code := c.run(patch, "patch"); code != 0 {
		t.Fatalf("patch: %d %s %s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "added.txt")); string(got) != "na\xefve\n" {
		t.Fatalf("added: %q, want Latin-1", got)
	}
	// Read back as the text written.
	if out, _, code := c.run("", "read", "added.txt"); code != 0 || !strings.Contains(out, "|naïve\n") {
		t.Fatalf("read back: %d %s", code, out)
	}
	out, errOut, code := c.run("→\n", "write", "arrow.txt", "--mode", "create")
	if code == 0 || !strings.Contains(out+errOut, "unrepresentable") {
		t.Fatalf("a create with a character Latin-1 lacks: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "arrow.txt")); !os.IsNotExist(err) {
		t.Fatalf("arrow.txt was written: %v", err)
	}
}
