package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A release build stamps its version with -ldflags -X, as the GoReleaser
// configuration does; both spellings print it.
func TestVersionStamped(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sightline")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X github.com/sightline-lsp/sightline/version.Version=1.2.3-test -X github.com/sightline-lsp/sightline/version.Stamped=2026-01-02T03:04:05Z", ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "sightline 1.2.3-test" {
			t.Errorf("sightline %s = %q, %v; want sightline 1.2.3-test", arg, out, err)
		}
	}
	// The manual page's date is the stamped source date: the same page
	// from every build of the release.
	out, err := exec.Command(bin, "man").Output()
	if err != nil || !strings.HasPrefix(string(out), `.TH SIGHTLINE 1 "2026-01-02" "sightline 1.2.3\-test"`) {
		t.Errorf("sightline man = %q, %v; want its .TH dated 2026-01-02", string(out)[:min(len(out), 80)], err)
	}
}

// `sightline bridge` names the socket folder and the servers listening in
// it: what :checkhealth sightline shows.
func TestBridgeReport(t *testing.T) {
	c := newCLI(t, map[string]string{"a.txt": "a\n"})
	var rep bridgeReport
	out, errOut, code := c.run("", "bridge", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("bridge --json = %d %q %q", code, out, errOut)
	}
	if len(rep.Servers) != 0 || rep.Dir == "" || rep.Root != c.dir {
		t.Fatalf("before a server: %+v", rep)
	}
	srv := startServer(t, c)
	out, errOut, code = c.run("", "bridge", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("bridge --json = %d %q %q", code, out, errOut)
	}
	if len(rep.Servers) != 1 || rep.Servers[0].PID != srv.Process.Pid || filepath.Dir(rep.Servers[0].Socket) != rep.Dir {
		t.Fatalf("with a server (pid %d): %+v", srv.Process.Pid, rep)
	}
	out, _, code = c.run("", "bridge")
	if code != 0 || !strings.Contains(out, "server pid ") {
		t.Fatalf("bridge = %d %q", code, out)
	}
}

// The completions and the manual page come from the table of --help: every
// command is there, and bash completes a command's name and its flags.
func TestCompletionAndMan(t *testing.T) {
	c := newCLI(t, nil)
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, errOut, code := c.run("", "completion", sh)
		if code != 0 {
			t.Fatalf("completion %s = %d %q", sh, code, errOut)
		}
		for _, cmd := range commands() {
			if !strings.Contains(out, cmd.name) {
				t.Errorf("completion %s lacks %s", sh, cmd.name)
			}
		}
	}
	if _, err := exec.LookPath("bash"); err == nil {
		script := `source <(sightline completion bash)
COMP_WORDS=(sightline rea); COMP_CWORD=1; _sightline; echo "${COMPREPLY[*]}"
COMP_WORDS=(sightline read --bu); COMP_CWORD=2; _sightline; echo "${COMPREPLY[*]}"`
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(c.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != "read\n--budget\n" {
			t.Errorf("bash completion = %q, %v; want read, then --budget", out, err)
		}
	}
	man, errOut, code := c.run("", "man")
	if code != 0 || !strings.HasPrefix(man, ".TH SIGHTLINE 1 \"20") {
		t.Fatalf("man = %d %q %q", code, man[:min(len(man), 80)], errOut)
	}
	for _, sec := range []string{".SH ENVIRONMENT", ".SH FILES", ".SH EXIT STATUS"} {
		if !strings.Contains(man, "\n"+sec+"\n") {
			t.Errorf("man lacks %s", sec)
		}
	}
	if _, err := exec.LookPath("groff"); err == nil {
		cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(man)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Errorf("groff finds the page wrong: %v\n%s", err, out)
		}
	}
}

// A build from a git checkout names its revision, the revision's time and
// whether the tree was modified (the build information Go records), so that
// a bug report can name the version: not "dev". (A toolchain that records
// no pseudo-version gives the same from the vcs settings: TestFromBuild.) The checkout is this tree's
// files committed in a new repository (a worktree's .git file is no
// checkout to Go); -trimpath keeps the build on the test binary's cache.
func TestVersionFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary in a checkout of its own")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	repo := strings.TrimSpace(string(top))
	src, err := exec.Command("git", "-C", repo, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(src), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(f)))
		if err != nil {
			continue // removed from the tree, not yet from the index
		}
		dst := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "t")
	rev := git("rev-parse", "HEAD")
	at := git("show", "-s", "--format=%cI", "HEAD")
	if err := os.WriteFile(filepath.Join(dir, "untracked.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "sightline")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-buildvcs=true", "-trimpath", "-o", bin, "./cmd/sightline")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	when, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	// Go stamps a checkout's build with a pseudo-version made of them.
	want := "sightline v0.0.0-" + when.UTC().Format("20060102150405") + "-" + rev[:12] + "+dirty\n"
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil || string(out) != want {
			t.Errorf("sightline %s = %q, %v; want %q", arg, out, err, want)
		}
	}
}
