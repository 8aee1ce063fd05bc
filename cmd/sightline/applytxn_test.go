package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIApplyAllOrNone: what makes an edit-block output refused whole,
// and where --stage runs git (one binary for both).
func TestCLIApplyAllOrNone(t *testing.T) {
	base := newCLI(t, nil)
	t.Run("unnamed block", func(t *testing.T) { applyUnnamedBlock(t, base) })
	t.Run("stage", func(t *testing.T) { applyStageNestedRepo(t, base) })
}

// applyUnnamedBlock: a block whose file cannot be found (prose
// between two blocks of one file) makes the whole output refused: not ok,
// the block named, and no block written.
func applyUnnamedBlock(t *testing.T, base *cli) {
	c := base.fresh(t, map[string]string{"a.txt": "one\ntwo\n"})
	c.run("", "read", "a.txt")
	out := "a.txt\n<<<< EDIT\none\n==== REPLACE\nONE\n>>>> EDIT END\n\nAnd then the second line:\n\n<<<< EDIT\ntwo\n==== REPLACE\nTWO\n>>>> EDIT END\n"
	stdout, stderr, code := c.run(out, "apply")
	if code != 1 || !strings.Contains(stdout+stderr, "Block 2") {
		t.Fatalf("an unnamed block: %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "a.txt")); string(b) != "one\ntwo\n" {
		t.Fatalf("a.txt written although a block was skipped: %q", b)
	}
}

// applyStageNestedRepo: --stage stages in the workspace's own
// repository, with hooks and the file system monitor off; a file inside a
// nested repository is written, not staged, and the answer says so.
func applyStageNestedRepo(t *testing.T, base *cli) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	c := base.fresh(t, nil)
	os.RemoveAll(filepath.Join(c.dir, ".git"))
	git := func(dir string, args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git(c.dir, "init", "-q")
	nested := filepath.Join(c.dir, "vendor/lib")
	os.MkdirAll(nested, 0o755)
	git(nested, "init", "-q")
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "monitor.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	git(nested, "config", "core.fsmonitor", hook)
	out := "top.txt\n<<<< EDIT\n==== REPLACE\ntop\n>>>> EDIT END\n" +
		"vendor/lib/x.txt\n<<<< EDIT\n==== REPLACE\nx\n>>>> EDIT END\n"
	stdout, stderr, code := c.run(out, "apply", "--stage")
	if code != 0 || !strings.Contains(stderr, "vendor/lib/x.txt was not staged") {
		t.Fatalf("apply --stage: %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the nested repository's core.fsmonitor ran")
	}
	staged, _ := exec.Command("git", "-C", c.dir, "diff", "--cached", "--name-only").Output()
	if strings.TrimSpace(string(staged)) != "top.txt" {
		t.Fatalf("staged in the workspace's repository: %q", staged)
	}
	if b, _ := os.ReadFile(filepath.Join(nested, "x.txt")); string(b) != "x\n" {
		t.Fatalf("vendor/lib/x.txt: %q", b)
	}
}
