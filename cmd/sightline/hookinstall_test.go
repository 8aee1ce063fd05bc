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
