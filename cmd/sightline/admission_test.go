package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/uri"
)

// TestAdmissionRefusalsAreAudited: a path refused before anything is read
// (outside the workspace, by .. or absolutely) leaves a denied audit row,
// from the CLI and from MCP alike.
func TestAdmissionRefusalsAreAudited(t *testing.T) {
	c := newCLI(t, map[string]string{"a.txt": "a\n"})
	outside := filepath.Join(filepath.Dir(c.dir), "x")
	os.WriteFile(outside, []byte("SECRET\n"), 0o644)
	t.Cleanup(func() { os.Remove(outside) })

	for _, args := range [][]string{
		{"read", "../x"},
		{"write", "../x", "--mode", "overwrite"},
		{"read", "/etc/passwd"},
		{"summary", "../x"},
		{"ledger", "../x"},
		{"edit", "../x", "--edits", "-"},
	} {
		out, errs, code := c.run("[]\n", args...)
		if code != 1 || !strings.HasPrefix(errs, "denied: ") || strings.Contains(out+errs, "SECRET") || strings.Contains(out, "root:") {
			t.Fatalf("%v: %d %q %q", args, code, out, errs)
		}
	}
	for _, blocks := range []string{
		"../x\n<<<< EDIT\nSECRET\n==== REPLACE\npwned\n>>>> EDIT END\n",
		"../y\n<<<< EDIT\n==== REPLACE\npwned\n>>>> EDIT END\n",
	} {
		if out, errs, code := c.run(blocks, "apply"); code != 1 || !strings.Contains(out+errs, "outside the workspace") {
			t.Fatalf("apply %q: %d %q %q", blocks, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(c.dir), "y")); err == nil {
		t.Fatal("a create block made ../y")
	}
	s := mcpSession(t, c)
	if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "../x"}); !isErr || !strings.HasPrefix(text, "denied: ") || strings.Contains(text, "SECRET") {
		t.Fatalf("MCP read ../x: %v %q", isErr, text)
	}
	if text, isErr := callText(t, s, "sightline_write", map[string]any{"path": "../x", "mode": "append", "content": "pwned\n"}); !isErr || !strings.HasPrefix(text, "denied: ") {
		t.Fatalf("MCP write ../x: %v %q", isErr, text)
	}
	s.Close()
	if b, _ := os.ReadFile(outside); string(b) != "SECRET\n" {
		t.Fatalf("the outside file was written: %q", b)
	}

	type want struct{ method, path, agent string }
	wants := []want{
		{"sightline/read", outside, ""},
		{"sightline/write", outside, ""},
		{"sightline/read", "/etc/passwd", ""},
		{"sightline/summary", outside, ""},
		{"sightline/ledger", outside, ""},
		{"sightline/edit", outside, ""},
		{"sightline/applyBlocks", outside, ""},
		{"sightline/applyBlocks", filepath.Join(filepath.Dir(c.dir), "y"), ""},
		{"sightline/read", outside, "mcp"},
		{"sightline/write", outside, "mcp"},
	}
	rows := auditRows(t, c)
	for _, w := range wants {
		found := false
		for _, r := range rows {
			agent, _ := r["agent"].(string)
			if r["method"] == w.method && r["path"] == w.path && agent == w.agent && r["outcome"] == "refused" && r["error"] == "denied" {
				found = true
			}
		}
		if !found {
			t.Errorf("no denied audit row for %+v in %v", w, rows)
		}
	}
}

// TestAdmissionHardLinks: a file with several hard links cannot be known by
// its name: reading it needs the user's approval, so a link to .env or to a
// key outside the workspace shows nothing without it.
func TestAdmissionHardLinks(t *testing.T) {
	c := newCLI(t, map[string]string{".env": "API_KEY=abc123\n", "plain.txt": "plain\n"})
	if err := os.Link(filepath.Join(c.dir, ".env"), filepath.Join(c.dir, "hard.txt")); err != nil {
		t.Skip("no hard links here:", err)
	}
	key := filepath.Join(t.TempDir(), "id_ed25519")
	os.WriteFile(key, []byte("PRIVATE KEY\n"), 0o600)
	if err := os.Link(key, filepath.Join(c.dir, "notes.md")); err != nil {
		t.Skip("no hard links across these folders:", err)
	}
	for _, name := range []string{"hard.txt", "notes.md"} {
		out, errs, code := c.run("", "read", name)
		if code != 1 || !strings.HasPrefix(errs, "approval_refused: ") || !strings.Contains(errs, "hard links") ||
			strings.Contains(out+errs, "abc123") || strings.Contains(out+errs, "PRIVATE") {
			t.Fatalf("read %s: %d %q %q", name, code, out, errs)
		}
		if out, errs, code := c.run("", "summary", name); code != 1 || strings.Contains(out+errs, "abc123") || strings.Contains(out+errs, "PRIVATE") {
			t.Fatalf("summary %s: %d %q %q", name, code, out, errs)
		}
	}
	// The user can approve it, as any sensitive file.
	if out, errs, code := c.run("", "read", "hard.txt", "--yes"); code != 0 || !strings.Contains(out, "abc123") {
		t.Fatalf("approved read of hard.txt: %d %q %q", code, out, errs)
	}
	// A file with one link reads as before.
	if out, errs, code := c.run("", "read", "plain.txt"); code != 0 || !strings.Contains(out, "plain") {
		t.Fatalf("read plain.txt: %d %q %q", code, out, errs)
	}
	rows := auditRows(t, c)
	refused := 0
	for _, r := range rows {
		if r["path"] == "hard.txt" && r["error"] == "approval_refused" {
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("no approval_refused audit row for hard.txt: %v", rows)
	}
}

// TestAdmissionBridgedGitConfigBuffer: through a running server whose editor
// has .git/config open, the CLI is refused its text as it is the file's.
func TestAdmissionBridgedGitConfigBuffer(t *testing.T) {
	c := newCLI(t, map[string]string{".git/config": "[core]\n", "a.txt": "a\n"})
	ed := startEditor(t, c)
	ed.Open(string(uri.File(filepath.Join(c.dir, ".git", "config"))), "plaintext", "[core]\n\tfsmonitor = BUFFERSECRET\n")
	out, errs, code := c.run("", "read", ".git/config")
	if code != 1 || !strings.HasPrefix(errs, "denied: ") || strings.Contains(out+errs, "BUFFERSECRET") {
		t.Fatalf("read .git/config through the bridge: %d %q %q", code, out, errs)
	}
	if out, errs, code := c.run("", "summary", ".git/config"); code != 1 || strings.Contains(out+errs, "BUFFERSECRET") {
		t.Fatalf("summary .git/config through the bridge: %d %q %q", code, out, errs)
	}
}

// TestAdmissionBridgedRefusalIsAudited: through a running server, a path
// outside the workspace is refused by the server's admission step, which
// audits it.
func TestAdmissionBridgedRefusalIsAudited(t *testing.T) {
	c := newCLI(t, map[string]string{"a.txt": "a\n"})
	startEditor(t, c)
	if out, errs, code := c.run("", "read", "/etc/passwd"); code != 1 || !strings.HasPrefix(errs, "denied: ") || strings.Contains(out, "root:") {
		t.Fatalf("read /etc/passwd through the bridge: %d %q %q", code, out, errs)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, r := range auditRows(t, c) {
			if r["method"] == "sightline/read" && r["path"] == "/etc/passwd" && r["error"] == "denied" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no denied audit row for /etc/passwd read through the server")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
