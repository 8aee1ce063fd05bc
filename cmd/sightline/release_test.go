package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A release build stamps its version with -ldflags -X, as the GoReleaser
// configuration does; both spellings print it.
func TestVersionStamped(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "sightline")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X github.com/sightline-lsp/sightline/version.Version=1.2.3-test", ".")
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
	if code != 0 || !strings.HasPrefix(man, ".TH SIGHTLINE 1") {
		t.Fatalf("man = %d %q %q", code, man[:min(len(man), 80)], errOut)
	}
	if _, err := exec.LookPath("groff"); err == nil {
		cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(man)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Errorf("groff finds the page wrong: %v\n%s", err, out)
		}
	}
}
