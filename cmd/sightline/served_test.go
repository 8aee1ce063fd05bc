package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command restores the saved reads of its own session only; another
// session's follow what a command of this one changed when a command of
// that session restores them: the edited line is stale for it, the others
// stay read.
func TestCLIOtherSessionsFollowAnEdit(t *testing.T) {
	c := newCLI(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n"})
	c.env = append(c.env, "SIGHTLINE_DAEMON=0")
	if out, errOut, code := c.run("", "read", "f.txt", "--session", "a"); code != 0 {
		t.Fatalf("read as a: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := c.run("", "read", "f.txt:3-3", "--session", "b")
	if code != 0 {
		t.Fatalf("read as b: %d\n%s%s", code, out, errOut)
	}
	ref, _, ok := strings.Cut(strings.TrimSpace(out), "|")
	if !ok {
		t.Fatalf("no ref in %q", out)
	}
	edits, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": ref, "new_content": "THREE"}})
	file := filepath.Join(t.TempDir(), "edits.json")
	os.WriteFile(file, edits, 0o644)
	if out, errOut, code := c.run("", "edit", "f.txt", "--edits", file, "--session", "b"); code != 0 {
		t.Fatalf("edit as b: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = c.run("", "ledger", "f.txt", "--session", "a")
	if want := "f.txt  stale  5 lines  read 1-2,4-5  stale 3\n"; code != 0 || out != want {
		t.Fatalf("a's ledger after b's edit: %d\n got %q\nwant %q\n%s", code, out, want, errOut)
	}
	out, _, _ = c.run("", "ledger", "f.txt", "--session", "b")
	if !strings.Contains(out, "authored 3") {
		t.Fatalf("b's ledger after its edit: %q", out)
	}
}
