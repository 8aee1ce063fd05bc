package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Real clients nobody here wrote drive the built binary over stdio: Node's
// vscode-languageserver-protocol (what VS Code's client is built on) and
// Neovim's built-in client. They skip when the client is not installed,
// unless SIGHTLINE_REQUIRE_REAL_CLIENTS is set (CI sets it).

func requireOrSkip(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("SIGHTLINE_REQUIRE_REAL_CLIENTS") != "" {
		t.Fatalf("%s is required (SIGHTLINE_REQUIRE_REAL_CLIENTS is set) but missing", what)
	}
	t.Skipf("%s not installed", what)
}

// realWorkspace makes a workspace holding demo.py, a real file (CPython's sched.py).
func realWorkspace(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../testdata/realworld/sched.py")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "demo.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	// A project's root holds its repository: without a marker every
	// answer would say which folder was taken as the workspace.
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestNodeClient(t *testing.T) {
	dir, _ := filepath.Abs("../../testdata/nodeclient")
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "vscode-languageserver-protocol")); err != nil {
		requireOrSkip(t, "testdata/nodeclient/node_modules (npm ci)")
	}
	bin, ws := buildBinary(t), realWorkspace(t)
	cmd := exec.Command("node", filepath.Join(dir, "client.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SIGHTLINE_BIN="+bin, "WORKSPACE="+ws)
	out, err := cmd.CombinedOutput()
	t.Logf("node client:\n%s", out)
	if err != nil {
		t.Fatalf("node client failed: %v", err)
	}
	if !strings.Contains(string(out), "ok  exit code 0 after shutdown") {
		t.Fatal("node client did not finish its checks")
	}
}

func TestNeovimClient(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		requireOrSkip(t, "nvim")
	}
	script, _ := filepath.Abs("../../testdata/nvim/client.lua")
	bin, ws := buildBinary(t), realWorkspace(t)
	cmd := exec.Command(nvim, "--headless", "-n", "-u", "NONE", "-c", "luafile "+script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "SIGHTLINE_BIN="+bin, "WORKSPACE="+ws, "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("neovim client:\n%s", out)
	if err != nil {
		t.Fatalf("neovim client failed: %v", err)
	}
	if !strings.Contains(string(out), "ok  exit code 0") {
		t.Fatal("neovim client did not finish its checks")
	}
}

// TestMCPClient: the official TypeScript MCP SDK's client spawns `sightline
// mcp` and lists the tools, reads, edits, dry-runs, is refused (isError),
// trips the guard and retries with the auto-expanded lines.
func TestMCPClient(t *testing.T) {
	dir, _ := filepath.Abs("../../testdata/mcpclient")
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		requireOrSkip(t, "testdata/mcpclient/node_modules (npm ci)")
	}
	bin, ws := buildBinary(t), realWorkspace(t)
	cmd := exec.Command("node", filepath.Join(dir, "client.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SIGHTLINE_BIN="+bin, "WORKSPACE="+ws, "XDG_STATE_HOME="+t.TempDir(), "SIGHTLINE_SESSION=")
	out, err := cmd.CombinedOutput()
	t.Logf("mcp client:\n%s", out)
	if err != nil {
		t.Fatalf("mcp client failed: %v", err)
	}
	if !strings.Contains(string(out), "ok  mcp client done") {
		t.Fatal("mcp client did not finish its checks")
	}
}
