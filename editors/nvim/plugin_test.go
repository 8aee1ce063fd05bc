// Package nvim_test runs the Neovim plugin (editors/nvim) in a real, headless
// Neovim against the built server. It skips without nvim unless
// SIGHTLINE_REQUIRE_REAL_CLIENTS is set (CI sets it).
package nvim_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// neovimAndServer finds Neovim (or skips) and builds the server.
func neovimAndServer(t *testing.T) (nvim, bin string) {
	t.Helper()
	nvim = os.Getenv("SIGHTLINE_NVIM") // another Neovim to try the plugin with
	if nvim == "" {
		var err error
		if nvim, err = exec.LookPath("nvim"); err != nil {
			if os.Getenv("SIGHTLINE_REQUIRE_REAL_CLIENTS") != "" {
				t.Fatal("nvim is required (SIGHTLINE_REQUIRE_REAL_CLIENTS is set) but missing")
			}
			t.Skip("nvim not installed")
		}
	}
	bin = filepath.Join(t.TempDir(), "sightline")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/sightline")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return nvim, bin
}

func TestNeovimPlugin(t *testing.T) {
	nvim, bin := neovimAndServer(t)
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

// :checkhealth sightline and lsp/sightline.lua (vim.lsp.enable on 0.11+; on
// older Neovim the configuration it returns, started by hand).
func TestNeovimHealthAndLspConfig(t *testing.T) {
	nvim, bin := neovimAndServer(t)
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"demo.py": "a = 1\nb = 2\nc = 3\nd = 4\n", ".git/HEAD": "ref: refs/heads/main\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, _ := filepath.Abs("test/health_lsp_test.lua")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-u", "NONE", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = ws
	state := filepath.Join(t.TempDir(), "state")
	cmd.Env = append(os.Environ(), "SIGHTLINE_BIN="+bin, "WORKSPACE="+ws, "STATE_DIR="+state,
		"SIGHTLINE_STATE_DIR="+state, "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("neovim health and lsp/:\n%s", out)
	if err != nil {
		t.Fatalf("neovim health test failed: %v", err)
	}
	if !strings.Contains(string(out), "ok  exit code 0") {
		t.Fatal("neovim health test did not finish its checks")
	}
}

// The Mason package's names resolve: its lspconfig name is a configuration
// of lsp/ (the plugin's, on the runtimepath), its assets are the archives
// the release makes (.goreleaser.yaml: sightline_<os>_<arch>) and each
// holds the binary it names.
func TestMasonPackageNamesResolve(t *testing.T) {
	b, err := os.ReadFile("../mason/packages/sightline/package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pkg := string(b)
	m := regexp.MustCompile(`(?m)^neovim:\n  lspconfig: (\S+)$`).FindStringSubmatch(pkg)
	if m == nil {
		t.Fatal("package.yaml names no neovim.lspconfig")
	}
	if _, err := os.Stat(filepath.Join("lsp", m[1]+".lua")); err != nil {
		t.Errorf("neovim.lspconfig %q names no lsp/%s.lua: %v", m[1], m[1], err)
	}
	rel, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rel), `name_template: "{{ .ProjectName }}_{{ .Os }}_{{ .Arch }}"`) {
		t.Fatal(".goreleaser.yaml's archive names changed: update this test and package.yaml")
	}
	assets := regexp.MustCompile(`(?m)^    - target: (\S+)\n      file: (\S+)\n      bin: (\S+)$`).FindAllStringSubmatch(pkg, -1)
	if len(assets) != 6 {
		t.Fatalf("package.yaml has %d assets, want the release's 6", len(assets))
	}
	osOf := map[string]string{"linux": "linux", "darwin": "darwin", "win": "windows"}
	archOf := map[string]string{"x64": "amd64", "arm64": "arm64"}
	for _, a := range assets {
		plat, arch, _ := strings.Cut(a[1], "_")
		goos, goarch := osOf[plat], archOf[arch]
		ext, exe := ".tar.gz", "sightline"
		if goos == "windows" {
			ext, exe = ".zip", "sightline.exe"
		}
		if want := "sightline_" + goos + "_" + goarch + ext; a[2] != want || a[3] != exe {
			t.Errorf("asset %s: file %s bin %s, want %s holding %s", a[1], a[2], a[3], want, exe)
		}
	}
}
