package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyAiderBlocks: `sightline apply` takes aider's SEARCH/REPLACE
// blocks, a bare file name that exists is their path, and a block whose
// file cannot be told makes the run fail (exit 1) with the reason and
// nothing written.
func TestApplyAiderBlocks(t *testing.T) {
	c := newCLI(t, map[string]string{"tmpk2j3h4": "one\ntwo\nthree\n", "foo.txt": "One\nTwo\n"})
	for _, n := range []string{"tmpk2j3h4", "foo.txt"} {
		if _, errOut, code := c.run("", "read", n); code != 0 {
			t.Fatalf("read %s: %s", n, errOut)
		}
	}
	out := "Do this:\n\ntmpk2j3h4\n<<<<<<< SEARCH\ntwo\n=======\nnew\n>>>>>>> REPLACE\n\n```text\nfoo.txt\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n>>>>>>> REPLACE\n```\n"
	if stdout, stderr, code := c.run(out, "apply"); code != 0 {
		t.Fatalf("apply: %d\n%s%s", code, stdout, stderr)
	}
	for n, want := range map[string]string{"tmpk2j3h4": "one\nnew\nthree\n", "foo.txt": "One\nTooooo\n"} {
		if b, _ := os.ReadFile(filepath.Join(c.dir, n)); string(b) != want {
			t.Fatalf("%s: %q", n, b)
		}
	}
	skipped := "foo.txt\n<<<<<<< SEARCH\nOne\n=======\nONE\n>>>>>>> REPLACE\n\nand then\n\n<<<<<<< SEARCH\nTooooo\n=======\nTwo\n>>>>>>> REPLACE\n"
	stdout, stderr, code := c.run(skipped, "apply")
	if code != 1 || !strings.Contains(stdout+stderr, "no file path") {
		t.Fatalf("skipped block: %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "foo.txt")); string(b) != "One\nTooooo\n" {
		t.Fatalf("written although refused: %q", b)
	}
}
