package main

import (
	"strings"
	"testing"
)

// Help follows the conventions of command line tools: on standard output,
// exit 0, a synopsis, the flags as --flag and an example per command;
// `help CMD` is `CMD --help`; an unknown command is said in two lines with
// the command it may have meant.
func TestHelpConventions(t *testing.T) {
	c := newCLI(t, nil)
	out, errOut, code := c.run("", "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("--help = %d, stderr %q", code, errOut)
	}
	for _, cmd := range commands() {
		if !strings.Contains(out, "sightline "+cmd.name) {
			t.Errorf("--help lacks %s", cmd.name)
		}
	}
	for _, cmd := range commands() {
		out, errOut, code := c.run("", cmd.name, "--help")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: sightline "+cmd.name) || !strings.Contains(out, "\nExample:\n  "+cmd.example+"\n") {
			t.Errorf("%s --help = %d, stderr %q, stdout:\n%s", cmd.name, code, errOut, out)
		}
		if strings.Contains(out, "\n  -") && !strings.Contains(out, "\n  --") {
			t.Errorf("%s --help spells flags with one dash:\n%s", cmd.name, out)
		}
		help, _, code := c.run("", "help", cmd.name)
		if code != 0 || help != out {
			t.Errorf("help %s = %d:\n%s\nwant what %s --help prints", cmd.name, code, help, cmd.name)
		}
	}
	out, _, _ = c.run("", "read", "--help")
	for _, want := range []string{"--budget N", "--yes", "--pretty", "--session S", "Example:\n  sightline read main.go:20-60"} {
		if !strings.Contains(out, want) {
			t.Errorf("read --help lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = c.run("", "hook", "install", "claude", "--help")
	if !strings.Contains(out, "--project") {
		t.Errorf("hook install claude --help lacks --project:\n%s", out)
	}
	out, errOut, code = c.run("", "red", "x")
	if code != 2 || out != "" || !strings.Contains(errOut, "did you mean `read`?") || strings.Count(errOut, "\n") > 2 {
		t.Errorf("red x = %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, errOut, code = c.run("", "read", "--bogus", "a")
	if code != 2 || !strings.Contains(errOut, "sightline read --help") || strings.Contains(errOut, "Usage of") {
		t.Errorf("read --bogus = %d, stderr %q", code, errOut)
	}
}
