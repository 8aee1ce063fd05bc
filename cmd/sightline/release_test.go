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
