//go:build unix

package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO in place of a configuration file is refused at once, never
// waited on; the user's own file may be a symbolic link (dotfiles), the
// workspace's may not.
func TestLoadSpecialFiles(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan Config)
	go func() { done <- Load(dir) }()
	select {
	case c := <-done:
		if _, closed := c.Closed(); !closed {
			t.Fatalf("a FIFO: %s", problems(c))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load waited on a FIFO")
	}

	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	os.MkdirAll(filepath.Join(home, "sightline"), 0o700)
	real := filepath.Join(t.TempDir(), "dotfiles.json")
	os.WriteFile(real, []byte(`{"policy": {"deny": ["x/**"]}}`), 0o600)
	os.Symlink(real, filepath.Join(home, "sightline", "config.json"))
	c := Load(t.TempDir())
	if _, closed := c.Closed(); closed || len(c.Policy.Deny) != 1 {
		t.Fatalf("the user's file through a link: %+v %s", c, problems(c))
	}
	ws := t.TempDir()
	os.Symlink(real, filepath.Join(ws, FileName))
	if _, closed := Load(ws).Closed(); !closed {
		t.Fatal("the workspace's file as a link was read")
	}
}
