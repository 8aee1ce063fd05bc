// Package nvim_test runs the Neovim plugin (editors/nvim) in a real, headless
// Neovim against the built server. It skips without nvim unless
// SIGHTLINE_REQUIRE_REAL_CLIENTS is set (CI sets it).
package nvim_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNeovimPlugin(t *testing.T) {
	nvim := os.Getenv("SIGHTLINE_NVIM") // another Neovim to try the plugin with
	if nvim == "" {
		var err error
		if nvim, err = exec.LookPath("nvim"); err != nil {
			if os.Getenv("SIGHTLINE_REQUIRE_REAL_CLIENTS") != "" {
				t.Fatal("nvim is required (SIGHTLINE_REQUIRE_REAL_CLIENTS is set) but missing")
			}
			t.Skip("nvim not installed")
		}
	}
	bin := filepath.Join(t.TempDir(), "sightline")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/sightline")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src, err := os.ReadFile("../../testdata/realworld/sched.py")
	if err != nil {
		t.Fatal(err)
	}
	ws, outside, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(ws, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string][]byte{
		filepath.Join(ws, "demo.py"):        src,
		filepath.Join(ws, ".git", "HEAD"):   []byte("ref: refs/heads/main\n"),
		filepath.Join(outside, "loose.txt"): []byte("not in a workspace\n"),
	} {
		if err := os.WriteFile(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, _ := filepath.Abs("test/plugin_test.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-u", "NONE", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "SIGHTLINE_BIN="+bin, "WORKSPACE="+ws, "OUTSIDE="+outside,
		"STATE_DIR="+filepath.Join(t.TempDir(), "state"), "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(),
		"XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("neovim plugin:\n%s", out)
	if err != nil {
		t.Fatalf("neovim plugin test failed: %v", err)
	}
	if !strings.Contains(string(out), "ok  exit code 0") {
		t.Fatal("neovim plugin test did not finish its checks")
	}
}
