package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// What the user asked for is done, or refused with the reason; never
// another thing without a word.
func TestNoSilentSubstitutions(t *testing.T) {
	var big strings.Builder
	big.WriteString("class Scheduler:\n")
	for i := range 400 {
		big.WriteString("    def step_" + strings.Repeat("x", i%7) + "(self): return " + strings.Repeat("1", 40) + "\n")
	}
	c := newCLI(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", ".env": "KEY=1\n", "lib/sched.py": big.String()})

	// tree-sitter in a build without it (the tests' binary is built with
	// CGO_ENABLED=0, as released): refused, saying how to get it.
	_, errOut, code := c.run("", "summary", "a.go", "--extract", "treesitter")
	if code != 2 || !strings.Contains(errOut, "built without tree-sitter") {
		t.Errorf("summary --extract treesitter = %d %q; want a refusal naming the build", code, errOut)
	}
	_, errOut, code = c.run("", "serve", "--extract", "treesitter")
	if code != 2 || !strings.Contains(errOut, "built without tree-sitter") {
		t.Errorf("serve --extract treesitter = %d %q; want a refusal naming the build", code, errOut)
	}
	// The setting in the workspace's file: a problem said with the answer,
	// not a regex summary passed off as tree-sitter's.
	os.WriteFile(filepath.Join(c.dir, ".sightline.json"), []byte(`{"extract": "treesitter"}`), 0o644)
	_, errOut, code = c.run("", "summary", "a.go")
	if code != 0 || !strings.Contains(errOut, "built without tree-sitter") {
		t.Errorf("summary with extract treesitter set = %d %q; want the problem said", code, errOut)
	}
	os.Remove(filepath.Join(c.dir, ".sightline.json"))

	// A sensitive file read with no terminal to ask on names --yes.
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd := exec.Command(c.bin, "read", ".env")
	cmd.Dir, cmd.Env, cmd.Stdin = c.dir, c.env, devnull
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "--yes") || strings.Contains(stderr.String(), "/dev/tty") {
		t.Errorf("read .env < /dev/null = %v %q; want a refusal naming --yes", err, stderr.String())
	}

	// A truncated read tells a CLI user the command that reads the rest.
	out, errOut, code := c.in("lib").run("", "read", "sched.py", "--budget", "2000")
	if code != 0 || !strings.Contains(out, "read them with `sightline read sched.py:") || strings.Contains(out, `{"start"`) {
		t.Fatalf("read --budget 2000 = %d %q, stdout tail %q", code, errOut, out[max(0, len(out)-300):])
	}
	i := strings.Index(out, "`sightline read ")
	next := strings.Fields(strings.Trim(out[i:strings.Index(out[i+1:], "`")+i+1], "`"))
	out2, errOut, code := c.in("lib").run("", append(next[1:], "--budget", "2000000")...)
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(out2), "(self): return "+strings.Repeat("1", 40)) || strings.Contains(out2, "truncated") {
		t.Errorf("%v = %d %q, stdout tail %q", next, code, errOut, out2[max(0, len(out2)-200):])
	}
	// The JSON keeps the protocol's notice.
	out, _, _ = c.run("", "read", "lib/sched.py", "--budget", "2000", "--json")
	if !strings.Contains(out, `range {\"start\": `) {
		t.Errorf("read --json's notice changed: %s", out[max(0, len(out)-300):])
	}
}
