//go:build linux

package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/daemon"
)

// twoDaemons is two workspaces of one user (one state home), each with its
// daemon started by a read.
func twoDaemons(t *testing.T) (a, b *cli) {
	t.Helper()
	a, sockA := daemonCLI(t, map[string]string{"a.txt": "a\n"})
	b = newCLI(t, map[string]string{"b.txt": "b\n"})
	b.env = a.env
	t.Cleanup(func() {
		for _, pid := range daemonPIDs(b.dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	sockB, err := bridge.Dir(stateDirOf(t, b))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*cli{a, b} {
		if _, e, code := c.run("", "read", filepath.Base(firstFile(c))); code != 0 {
			t.Fatalf("read: %d %s", code, e)
		}
	}
	waitDaemon(t, sockA)
	waitDaemon(t, sockB)
	return a, b
}

func firstFile(c *cli) string {
	ents, _ := os.ReadDir(c.dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			return filepath.Join(c.dir, e.Name())
		}
	}
	return ""
}

// TestDaemonListStatusStopAll: `daemon list` shows every daemon of the
// user with its root, pid, build, uptime and memory; `daemon status` this
// workspace's; `daemon stop --all` stops them all.
func TestDaemonListStatusStopAll(t *testing.T) {
	a, b := twoDaemons(t)
	out, e, code := a.run("", "daemon", "list", "--json")
	if code != 0 {
		t.Fatalf("daemon list: %d %s", code, e)
	}
	var ds []daemon.Info
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	roots := map[string]daemon.Info{}
	for _, d := range ds {
		if len(d.Roots) == 1 {
			roots[d.Roots[0]] = d
		}
	}
	for _, c := range []*cli{a, b} {
		d, ok := roots[c.dir]
		if !ok {
			t.Fatalf("daemon list lacks %s: %s", c.dir, out)
		}
		if pids := daemonPIDs(c.dir); !slices.Contains(pids, d.PID) {
			t.Errorf("listed pid %d of %s, running: %v", d.PID, c.dir, pids)
		}
		if d.Build == "" || d.Started == "" || d.Memory <= 0 || d.Socket == "" || d.Log == "" {
			t.Errorf("incomplete entry: %+v", d)
		}
	}
	human, _, _ := a.run("", "daemon", "list")
	if !strings.Contains(human, a.dir) || !strings.Contains(human, b.dir) || !strings.Contains(human, "MiB") {
		t.Errorf("daemon list:\n%s", human)
	}

	out, e, code = b.run("", "daemon", "status", "--json")
	var st daemonReport
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("daemon status: %d %s %s", code, out, e)
	}
	if !st.Running || st.Daemon == nil || st.Daemon.PID != roots[b.dir].PID || st.Root != b.dir || !st.ThisBuild {
		t.Errorf("daemon status of b: %s", out)
	}
	human, _, _ = b.run("", "daemon", "status")
	for _, want := range []string{"pid", "uptime", "memory", "socket", "log", b.dir} {
		if !strings.Contains(human, want) {
			t.Errorf("daemon status lacks %q:\n%s", want, human)
		}
	}

	out, e, code = a.run("", "daemon", "stop", "--all")
	if code != 0 || !strings.Contains(out, a.dir) || !strings.Contains(out, b.dir) {
		t.Fatalf("daemon stop --all: %d %s %s", code, out, e)
	}
	for _, c := range []*cli{a, b} {
		for _, pid := range daemonPIDs(c.dir) {
			waitGone(t, pid, 5*time.Second)
		}
	}
	if out, _, _ := a.run("", "daemon", "list"); !strings.Contains(out, "no daemon runs") {
		t.Errorf("after stop --all: %s", out)
	}
	if out, _, _ := a.run("", "daemon", "status"); !strings.Contains(out, "no daemon runs") {
		t.Errorf("status after stop --all: %s", out)
	}
}

// TestDaemonHoldsNothingOfTheWorkspaceButItsRoot: the daemon's working
// directory is out of the workspace, and of the workspace it holds open
// only the root folder (the confined root every file is opened from), no
// file, once its calls are answered.
func TestDaemonHoldsNothingOfTheWorkspaceButItsRoot(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"sub/f.txt": "a\nb\n"})
	c.run("", "read", "sub/f.txt")
	waitDaemon(t, sockDir)
	c.run("", "read", "sub/f.txt") // through the daemon
	pids := daemonPIDs(c.dir)
	if len(pids) != 1 {
		t.Fatalf("daemons: %v", pids)
	}
	inside := func(p string) bool { return p == c.dir || strings.HasPrefix(p, c.dir+"/") }
	cwd, err := os.Readlink(filepath.Join("/proc", itoa(pids[0]), "cwd"))
	if err != nil {
		t.Fatal(err)
	}
	if inside(cwd) {
		t.Errorf("the daemon's working directory is in the workspace: %s", cwd)
	}
	fds, _ := os.ReadDir(filepath.Join("/proc", itoa(pids[0]), "fd"))
	held := 0
	for _, fd := range fds {
		p, err := os.Readlink(filepath.Join("/proc", itoa(pids[0]), "fd", fd.Name()))
		if err != nil || !inside(p) {
			continue
		}
		if p != c.dir {
			t.Errorf("the daemon holds %s open", p)
		}
		held++
	}
	if held > 2 {
		t.Errorf("the daemon holds the root open %d times", held)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDaemonLogsItsLife: the daemon logs its start and its exit, with why,
// to daemon.log in the state folder.
func TestDaemonLogsItsLife(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\n"})
	c.run("", "read", "f.txt")
	waitDaemon(t, sockDir)
	c.run("", "daemon", "stop")
	log := daemon.LogPath(stateDirOf(t, c))
	var b []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ = os.ReadFile(log); strings.Contains(string(b), "daemon: stopped") {
			break
		}
	}
	for _, want := range []string{`"daemon: start"`, `"root":"` + c.dir + `"`, `"daemon: exit"`, `"why":"asked"`, `"daemon: stopped"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the log lacks %s:\n%s", want, b)
		}
	}
}

// onTerminal runs a command of c with its standard streams on a
// pseudo-terminal (script(1)) and returns what the terminal showed.
func onTerminal(t *testing.T, c *cli, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) for a pseudo-terminal")
	}
	line := c.bin
	for _, a := range args {
		line += " '" + a + "'"
	}
	cmd := exec.Command("script", "-qec", line, "/dev/null")
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("script: %v: %s", err, out)
	}
	return string(out)
}

// TestDaemonFirstStartToldOnceOnATerminal: the first daemon a command
// starts in a workspace is told on a terminal, once; never when stderr is
// a pipe, nor with --json.
func TestDaemonFirstStartToldOnceOnATerminal(t *testing.T) {
	const told = "started a daemon for"
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\n"})
	_, e, _ := c.run("", "read", "f.txt")
	if strings.Contains(e, told) {
		t.Errorf("told through a pipe: %s", e)
	}
	waitDaemon(t, sockDir)
	c.run("", "daemon", "stop")
	os.Remove(filepath.Join(sockDir, "daemon.started"))

	if out := onTerminal(t, c, "read", "f.txt", "--json"); strings.Contains(out, told) {
		t.Errorf("told with --json: %s", out)
	}
	waitDaemon(t, sockDir)
	c.run("", "daemon", "stop")
	os.Remove(filepath.Join(sockDir, "daemon.started"))

	out := onTerminal(t, c, "read", "f.txt")
	if !strings.Contains(out, told) || !strings.Contains(out, "SIGHTLINE_DAEMON=0") || !strings.Contains(out, "daemon status") {
		t.Errorf("not told on a terminal: %s", out)
	}
	waitDaemon(t, sockDir)
	c.run("", "daemon", "stop")
	os.Remove(filepath.Join(sockDir, "daemon.started"))

	if out := onTerminal(t, c, "read", "f.txt"); strings.Contains(out, told) {
		t.Errorf("told twice: %s", out)
	}
	waitDaemon(t, sockDir)
}

// noGit is a folder tree with no .git above it, whose commands start no
// daemon.
func noGit(t *testing.T, files map[string]string) *cli {
	t.Helper()
	c := newCLI(t, files)
	if err := os.RemoveAll(filepath.Join(c.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "SIGHTLINE_DAEMON=0")
	return c
}

// TestSightlineJSONMarksTheRoot: outside a repository, .sightline.json
// marks the workspace's root: a read in a subfolder is in the ledger of a
// command run at the root, and no answer warns.
func TestSightlineJSONMarksTheRoot(t *testing.T) {
	c := noGit(t, map[string]string{".sightline.json": "{}\n", "sub/m.txt": "a\nb\n"})
	_, e, code := c.in("sub").run("", "read", "m.txt")
	if code != 0 || strings.Contains(e, "warning") {
		t.Fatalf("read: %d %s", code, e)
	}
	out, e, code := c.run("", "ledger")
	if code != 0 || !strings.Contains(out, "sub/m.txt") || !strings.Contains(out, "fully_read") {
		t.Errorf("ledger at the root: %d %s %s", code, out, e)
	}
}

// TestNoMarkerAnswerSaysWhichFolder: with no .git or .sightline.json
// above, the answer says which folder was taken as the workspace, why,
// and how to mark the root: on stderr, and in --json's warnings.
func TestNoMarkerAnswerSaysWhichFolder(t *testing.T) {
	c := noGit(t, map[string]string{"sub/m.txt": "a\n"})
	sub := filepath.Join(c.dir, "sub")
	out, e, code := c.in("sub").run("", "read", "m.txt")
	if code != 0 || out == "" {
		t.Fatalf("read: %d %s", code, e)
	}
	for _, want := range []string{"No .git or .sightline.json in " + sub, "Create .sightline.json"} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q: %s", want, e)
		}
	}
	out, _, _ = c.in("sub").run("", "read", "m.txt", "--json")
	var r struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], sub) {
		t.Errorf("--json warnings: %s", out)
	}
}

// TestStateListAndPrune: state list shows each state folder's root, size,
// last use and whether the root exists; prune removes those whose root is
// gone (--dry-run only says so), never one a server still listens for.
func TestStateListAndPrune(t *testing.T) {
	a := noGit(t, map[string]string{".sightline.json": "{}\n", "a.txt": "a\n"})
	b := noGit(t, map[string]string{".sightline.json": "{}\n", "b.txt": "b\n"})
	d := noGit(t, map[string]string{".sightline.json": "{}\n", "d.txt": "d\n"})
	b.env, d.env = a.env, a.env
	for _, c := range []*cli{a, b, d} {
		if _, e, code := c.run("", "read", filepath.Base(firstFile(c))); code != 0 {
			t.Fatalf("read: %s", e)
		}
	}
	list := func() map[string]stateEntry {
		t.Helper()
		out, e, code := a.run("", "state", "list", "--json")
		var es []stateEntry
		if code != 0 || json.Unmarshal([]byte(out), &es) != nil {
			t.Fatalf("state list: %d %s %s", code, out, e)
		}
		m := map[string]stateEntry{}
		for _, s := range es {
			m[s.Root] = s
		}
		return m
	}
	m := list()
	for _, c := range []*cli{a, b, d} {
		s, ok := m[c.dir]
		if !ok || !s.RootExists || s.Size == 0 || time.Since(s.LastUsed) > time.Minute {
			t.Fatalf("state of %s: %+v in %v", c.dir, s, m)
		}
	}
	bState, dState := m[b.dir].Dir, m[d.dir].Dir
	// d's: made before the root was recorded; its database tells the root.
	os.Remove(filepath.Join(dState, "root"))
	if s := list()[d.dir]; s.Dir != dState {
		t.Errorf("the root of a state folder without its record: %+v", s)
	}
	// An editor's server (a socket listening) still uses d's state.
	sock, err := bridge.Dir(dState)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(sock, "4242-1.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.RemoveAll(b.dir)
	os.RemoveAll(d.dir)
	if s := list()[b.dir]; s.RootExists {
		t.Errorf("b's root is gone: %+v", s)
	}

	out, e, code := a.run("", "state", "prune", "--dry-run")
	if code != 0 || !strings.Contains(out, "would remove "+bState) || strings.Contains(out, dState) {
		t.Errorf("prune --dry-run: %d %s %s", code, out, e)
	}
	if _, err := os.Stat(bState); err != nil {
		t.Errorf("--dry-run removed: %v", err)
	}
	out, e, code = a.run("", "state", "prune")
	if code != 0 || !strings.Contains(out, "removed "+bState) {
		t.Errorf("prune: %d %s %s", code, out, e)
	}
	if _, err := os.Stat(bState); !os.IsNotExist(err) {
		t.Errorf("pruned state still there: %v", err)
	}
	for _, p := range []string{dState, m[a.dir].Dir} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("prune removed %s: %v", p, err)
		}
	}
}

// rootFDs lists the daemon's descriptors of the workspace root or inside it.
func rootFDs(pid int, root string) []string {
	var out []string
	fds, _ := os.ReadDir(filepath.Join("/proc", itoa(pid), "fd"))
	for _, fd := range fds {
		p, err := os.Readlink(filepath.Join("/proc", itoa(pid), "fd", fd.Name()))
		if err == nil && (p == root || strings.HasPrefix(p, root+"/")) {
			out = append(out, p)
		}
	}
	return out
}

// TestDaemonReleasesTheRootWhenIdle: an idle daemon holds nothing of the
// workspace open (a file system holding it can be unmounted), and the next
// call opens the root again and is answered as before.
func TestDaemonReleasesTheRootWhenIdle(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\n"})
	c.env = append(c.env, "SIGHTLINE_DAEMON_IDLE=8s") // released after 4 s
	c.run("", "read", "f.txt:1")
	waitDaemon(t, sockDir)
	pids := daemonPIDs(c.dir)
	if len(pids) != 1 {
		t.Fatalf("daemons: %v", pids)
	}
	c.run("", "read", "f.txt:1") // through the daemon: it holds the root
	if fds := rootFDs(pids[0], c.dir); len(fds) == 0 {
		t.Fatalf("the daemon holds no handle of its root after a call")
	}
	released := false
	for deadline := time.Now().Add(7 * time.Second); time.Now().Before(deadline) && !released; time.Sleep(100 * time.Millisecond) {
		released = len(rootFDs(pids[0], c.dir)) == 0
	}
	if !released {
		t.Fatalf("idle, the daemon still holds %v", rootFDs(pids[0], c.dir))
	}
	out, e, code := c.run("", "read", "f.txt:2")
	if code != 0 || !strings.Contains(out, "|b") {
		t.Fatalf("read after the release: %d %s %s", code, out, e)
	}
	if got := daemonPIDs(c.dir); !slices.Equal(got, pids) {
		t.Fatalf("the call was not served by the same daemon: %v, was %v", got, pids)
	}
	out, _, _ = c.run("", "ledger", "f.txt")
	if !strings.Contains(out, "fully_read") {
		t.Errorf("ledger after the release: %s", out)
	}
}
