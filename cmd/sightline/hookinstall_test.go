package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookInstallThroughALinkAndReadOnly: `sightline hook install` writes
// the file a linked settings file names (the link stays), and refuses a
// read-only one, changing nothing.
func TestHookInstallThroughALinkAndReadOnly(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	dot := filepath.Join(home, "dotfiles", "claude.json")
	os.MkdirAll(filepath.Dir(dot), 0o755)
	os.WriteFile(dot, []byte(`{"model": "opus"}`+"\n"), 0o600)
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	if err := os.Symlink(dot, settings); err != nil {
		t.Skipf("this system makes no symbolic links for this process (%v)", err)
	}
	if _, err := os.Lstat(settings); err != nil {
		t.Skip("this system answers success to making a symbolic link but makes none (Wine)")
	}
	var stdout, stderr bytes.Buffer
	if code := runHook(context.Background(), []string{"install", "claude"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("install: %d %s", code, stderr.String())
	}
	if fi, err := os.Lstat(settings); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(dot); !strings.Contains(string(b), "hook claude") || !strings.Contains(stdout.String(), "linked from") {
		t.Fatalf("the linked file:\n%s\nsaid:\n%s", b, stdout.String())
	}
	os.WriteFile(dot, []byte("{}\n"), 0o600)
	os.Chmod(dot, 0o400)
	t.Cleanup(func() { os.Chmod(dot, 0o600) })
	stdout.Reset()
	stderr.Reset()
	if code := runHook(context.Background(), []string{"install", "claude"}, nil, &stdout, &stderr); code == exitOK || !strings.Contains(stderr.String(), "read-only") {
		t.Fatalf("a read-only file: %d %s %s", code, stdout.String(), stderr.String())
	}
	if b, _ := os.ReadFile(dot); string(b) != "{}\n" {
		t.Fatalf("changed: %s", b)
	}
	if fi, err := os.Lstat(settings); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
}

// A project's settings are shared: `hook install claude --project` writes
// the command by name when `sightline` on PATH is this binary; else the
// machine's path goes in settings.local.json, which is not shared, and the
// command says so.
func TestHookInstallProjectPortable(t *testing.T) {
	c := newCLI(t, nil)
	settings := filepath.Join(c.dir, ".claude", "settings.json")
	local := filepath.Join(c.dir, ".claude", "settings.local.json")
	env := c.env
	c.env = append(env, "PATH="+filepath.Dir(c.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, errOut, code := c.run("", "hook", "install", "claude", "--project")
	b, _ := os.ReadFile(settings)
	if code != 0 || !strings.Contains(string(b), `"command": "sightline hook claude"`) || strings.Contains(string(b), c.bin) {
		t.Fatalf("on PATH: %d %q %q\n%s", code, out, errOut, b)
	}
	if _, err := os.Stat(local); err == nil {
		t.Fatal("on PATH, settings.local.json was written")
	}
	if _, _, code := c.run("", "hook", "uninstall", "claude", "--project"); code != 0 {
		t.Fatal("uninstall")
	}

	c.env = append(env, "PATH="+t.TempDir())
	out, errOut, code = c.run("", "hook", "install", "claude", "--project")
	b, _ = os.ReadFile(local)
	if code != 0 || !strings.Contains(string(b), c.bin+" hook claude") || !strings.Contains(out, "settings.local.json") {
		t.Fatalf("not on PATH: %d %q %q\n%s", code, out, errOut, b)
	}
	if b, _ := os.ReadFile(settings); strings.Contains(string(b), c.bin) {
		t.Fatalf("not on PATH, the shared settings name this machine's path:\n%s", b)
	}
	out, _, code = c.run("", "hook", "uninstall", "claude", "--project")
	if b, _ := os.ReadFile(local); code != 0 || strings.Contains(string(b), "hook claude") {
		t.Fatalf("uninstall left settings.local.json's hooks: %d %q\n%s", code, out, b)
	}
}
