//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/ops"
)

// daemonCLI is a workspace whose CLI starts the daemon (SIGHTLINE_DAEMON=1).
// Every daemon of it is stopped, else killed, when the test ends.
func daemonCLI(t *testing.T, files map[string]string) (*cli, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the daemon is not started on Windows")
	}
	c := newCLI(t, files)
	c.env = append(c.env, "SIGHTLINE_DAEMON=1", "SIGHTLINE_DAEMON_IDLE=30s")
	sockDir, err := bridge.Dir(stateDirOf(t, c))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pids := daemonPIDs(c.dir)
		c.run("", "daemon", "stop")
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return c, sockDir
}

// daemonPIDs lists the running `sightline daemon` processes of root (Linux:
// from /proc; elsewhere from the sockets).
func daemonPIDs(root string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 3 && args[1] == "daemon" && args[2] == "--root" && args[3] == root {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// waitDaemon waits (bounded) for a daemon to listen in sockDir and returns
// its socket.
func waitDaemon(t *testing.T, sockDir string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, p := range bridge.Sockets(sockDir) {
			if bridge.IsDaemon(p) {
				return p
			}
		}
	}
	t.Fatalf("no daemon listens in %s", sockDir)
	return ""
}

// waitGone waits (bounded) for a process to end.
func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
			return // exited; its parent (init) reaps it
		}
	}
	t.Fatalf("process %d still runs after %v", pid, within)
}

// startDaemon runs `sightline daemon` of c's workspace itself, logging each
// call to a file it returns; killed when the test ends.
func startDaemon(t *testing.T, c *cli, sockDir string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "daemon.log")
	cmd := exec.Command(c.bin, append([]string{"daemon", "--root", c.dir, "--log-file", log, "--log-level", "debug"}, args...)...)
	cmd.Dir, cmd.Env = c.dir, c.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitDaemon(t, sockDir)
	return cmd, log
}

// TestDaemonStartsAndServesTheNextCalls: the first call runs in its own
// process and starts the daemon as it ends; the next calls go to it, and
// see what the first recorded.
func TestDaemonStartsAndServesTheNextCalls(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\nc\nd\n"})
	if out, errOut, code := c.run("", "read", "f.txt:1-2"); code != 0 || !strings.Contains(out, "|a") {
		t.Fatalf("first read: %d %s %s", code, out, errOut)
	}
	sock := waitDaemon(t, sockDir)
	out, errOut, code := c.run("", "read", "f.txt:3-3")
	if code != 0 || !strings.Contains(out, "|c") {
		t.Fatalf("read through the daemon: %d %s %s", code, out, errOut)
	}
	out, _, _ = c.run("", "ledger", "f.txt")
	if !strings.Contains(out, "read 1-3") {
		t.Fatalf("the ledger through the daemon must hold both reads:\n%s", out)
	}
	out, _, _ = c.run("", "bridge")
	if !strings.Contains(out, sock) {
		t.Fatalf("sightline bridge does not show the daemon %s:\n%s", sock, out)
	}
	// Stopped, it writes its ledger: the disk then answers the same.
	if out, errOut, code := c.run("", "daemon", "stop"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("daemon stop: %d %s %s", code, out, errOut)
	}
	local := append([]string{}, c.env...)
	d := *c
	d.env = append(local, "SIGHTLINE_DAEMON=0")
	if out, _, _ := d.run("", "ledger", "f.txt"); !strings.Contains(out, "read 1-3") {
		t.Fatalf("the ledger on disk after the daemon stopped:\n%s", out)
	}
	if s := bridge.Sockets(sockDir); len(s) != 0 {
		t.Fatalf("sockets left after the daemon stopped: %v", s)
	}
}

// TestDaemonOneOfManyStarters: CLIs ending at once each start a daemon;
// one serves, the others exit at once.
func TestDaemonOneOfManyStarters(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts processes in /proc")
	}
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\n"})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			cmd := exec.Command(c.bin, "daemon", "--root", c.dir)
			cmd.Dir, cmd.Env = c.dir, c.env
			_ = cmd.Start()
			go cmd.Wait()
		})
		wg.Go(func() { c.run("", "read", "f.txt") })
	}
	wg.Wait()
	waitDaemon(t, sockDir)
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if pids = daemonPIDs(c.dir); len(pids) == 1 {
			break
		}
	}
	if len(pids) != 1 {
		t.Fatalf("daemons running: %v, want one", pids)
	}
	var socks []string
	for _, s := range bridge.Sockets(sockDir) {
		socks = append(socks, filepath.Base(s))
	}
	if want := fmt.Sprintf("%d-daemon.sock", pids[0]); len(socks) != 1 || socks[0] != want {
		t.Fatalf("sockets %v, want %s", socks, want)
	}
	if out, _, code := c.run("", "read", "f.txt:2-2"); code != 0 || !strings.Contains(out, "|b") {
		t.Fatalf("read: %d %s", code, out)
	}
}

// TestDaemonLifecycle: a killed daemon's socket is removed and a new one
// serves; a daemon exits when idle, when its workspace's state folder is
// removed, and on SIGTERM after writing its ledger.
func TestDaemonLifecycle(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("watches processes in /proc")
	}
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\n"})

	// Killed: its socket stays; the CLI removes it, runs on disk and
	// starts another.
	d, _ := startDaemon(t, c, sockDir)
	sock := waitDaemon(t, sockDir)
	d.Process.Kill()
	d.Wait()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("a killed daemon's socket should be left behind: %v", err)
	}
	if out, errOut, code := c.run("", "read", "f.txt:1-1"); code != 0 || !strings.Contains(out, "|a") {
		t.Fatalf("read beside a dead socket: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("the dead socket was not removed: %v", err)
	}
	next := waitDaemon(t, sockDir)
	if next == sock {
		t.Fatal("the dead socket is still the one listed")
	}

	// SIGTERM: it exits, having written its ledger.
	if _, _, code := c.run("", "read", "f.txt:2-2"); code != 0 {
		t.Fatal("read through the daemon")
	}
	pids := daemonPIDs(c.dir)
	if len(pids) != 1 {
		t.Fatalf("daemons: %v", pids)
	}
	syscall.Kill(pids[0], syscall.SIGTERM)
	waitGone(t, pids[0], 5*time.Second)
	if s := bridge.Sockets(sockDir); len(s) != 0 {
		t.Fatalf("sockets after SIGTERM: %v", s)
	}
	off := *c
	off.env = append(append([]string{}, c.env...), "SIGHTLINE_DAEMON=0")
	if out, _, _ := off.run("", "ledger", "f.txt"); !strings.Contains(out, "read 1-2") {
		t.Fatalf("the read the daemon served was not written at SIGTERM:\n%s", out)
	}

	// Idle: it exits on its own.
	idle, _ := startDaemon(t, c, sockDir, "--idle", "300ms")
	done := make(chan error, 1)
	go func() { done <- idle.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("idle exit: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon did not exit when idle")
	}

	// Its state folder removed: it exits.
	gone, _ := startDaemon(t, c, sockDir)
	done = make(chan error, 1)
	go func() { done <- gone.Wait() }()
	if err := os.RemoveAll(stateDirOf(t, c)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(8 * time.Second):
		t.Fatal("the daemon did not exit when its state folder was removed")
	}
}

// TestDaemonOfAnotherBuildIsNotUsed: a daemon of another build (here, the
// same code linked to another file) is asked to exit; the call runs on disk
// and starts a daemon of the caller's build.
func TestDaemonOfAnotherBuildIsNotUsed(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\n"})
	other := filepath.Join(t.TempDir(), "sightline-other")
	b, err := os.ReadFile(c.bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o755); err != nil {
		t.Fatal(err)
	}
	o := *c
	o.bin = other
	old, _ := startDaemon(t, &o, sockDir)
	oldSock := waitDaemon(t, sockDir)
	done := make(chan struct{})
	go func() { old.Wait(); close(done) }()
	if out, errOut, code := c.run("", "read", "f.txt"); code != 0 || !strings.Contains(out, "|a") {
		t.Fatalf("read: %d %s %s", code, out, errOut)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon of another build was not asked to exit")
	}
	if s := waitDaemon(t, sockDir); s == oldSock {
		t.Fatal("no daemon of the caller's build started")
	}
}

// TestDaemonConfigAndApprovals: a call through the daemon sees the
// workspace's configuration as it is now, and its approvals are the
// caller's (--yes), refused the same way without one.
func TestDaemonConfigAndApprovals(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": strings.Repeat("x\n", 50), ".env": "SECRET=1\n"})
	off := *c
	off.env = append(append([]string{}, c.env...), "SIGHTLINE_DAEMON=0", "SIGHTLINE_NO_BRIDGE=1")
	// Refused without an approver: the same words as on disk.
	_, localErr, localCode := off.run("", "read", ".env", "--session", "s1")
	startDaemon(t, c, sockDir)
	_, errOut, code := c.run("", "read", ".env", "--session", "s2")
	if code != localCode || code != 1 || strings.ReplaceAll(errOut, "s2", "s1") != localErr {
		t.Fatalf("refusal through the daemon (%d):\n%s\non disk (%d):\n%s", code, errOut, localCode, localErr)
	}
	// --yes approves it for the call, through the daemon as on disk.
	if out, errOut, code := c.run("", "read", ".env", "--yes", "--session", "s2"); code != 0 || !strings.Contains(out, "SECRET=1") {
		t.Fatalf("--yes through the daemon: %d %s %s", code, out, errOut)
	}
	// The configuration changed between calls: the next call obeys it.
	if out, _, code := c.run("", "read", "f.txt:1-1"); code != 0 || !strings.Contains(out, "|x") {
		t.Fatalf("read before the configuration changed: %d %s", code, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, ".sightline.json"), []byte(`{"policy": {"deny": ["f.txt"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("", "read", "f.txt:1-1")
	want, wantErr, wantCode := off.run("", "read", "f.txt:1-1")
	if code != 1 || code != wantCode || out != want || errOut != wantErr {
		t.Fatalf("read after the configuration denied it, through the daemon (%d):\n%s%s\non disk (%d):\n%s%s", code, out, errOut, wantCode, want, wantErr)
	}
}

// TestDaemonGivesWayToAnEditor: with an editor's server running, calls go
// to it (its buffers) and the daemon is asked to exit.
func TestDaemonGivesWayToAnEditor(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.py": diskText})
	d, _ := startDaemon(t, c, sockDir)
	done := make(chan struct{})
	go func() { d.Wait(); close(done) }()
	ed := startEditor(t, c)
	ed.Open(string(uri.File(filepath.Join(c.dir, "f.py"))), "python", dirtyText)
	if out, _, _ := c.run("", "read", "f.py"); !strings.Contains(out, "unsaved") {
		t.Fatalf("read with an editor and a daemon: %s", out)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the daemon did not exit when an editor's server ran")
	}
	// Nor is one started while the editor's server runs.
	c.run("", "read", "f.py")
	time.Sleep(300 * time.Millisecond)
	for _, s := range bridge.Sockets(sockDir) {
		if bridge.IsDaemon(s) {
			t.Fatalf("a daemon started beside the editor's server: %s", s)
		}
	}
}

// TestTableThroughTheDaemon walks the operation table through the CLI
// twice, in two copies of one workspace: in its own process, and through
// the daemon. Each operation answers the same verdict and, where the answer
// holds no times, the same words; the daemon's log shows it served them;
// the ledger afterwards is the same.
func TestTableThroughTheDaemon(t *testing.T) {
	files := map[string]string{"f.txt": "a\nb\nc\n"}
	c, sockDir := daemonCLI(t, files)
	off := newCLI(t, files)
	off.env = append(off.env, "SIGHTLINE_DAEMON=0")
	edits := `[{"type":"replace_line","ref":"` + ref(2, "b") + `","new_content":"B"}]`
	blocks := "f.txt\n<<<< EDIT\nb\n==== REPLACE\nB\n>>>> EDIT END\n"
	patchText := "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	type row struct {
		stdin string
		cli   []string
		words bool
	}
	event := func(dir, ev, tool string, in, resp map[string]any) string {
		return claudeEvent(dir, ev, tool, in, resp)
	}
	rows := map[string]func(dir string) row{
		"sightline/read":          func(string) row { return row{"", []string{"read", "f.txt"}, true} },
		"sightline/edit":          func(string) row { return row{edits, []string{"edit", "f.txt", "--dry-run", "--edits", "-"}, true} },
		"sightline/write":         func(string) row { return row{"d", []string{"write", "f.txt", "--mode", "append", "--dry-run"}, true} },
		"sightline/applyBlocks":   func(string) row { return row{blocks, []string{"apply", "--dry-run"}, false} },
		"sightline/applyPatch":    func(string) row { return row{patchText, []string{"patch", "--dry-run"}, true} },
		"sightline/ledger":        func(string) row { return row{"", []string{"ledger", "f.txt"}, true} },
		"sightline/summary":       func(string) row { return row{"", []string{"summary", "f.txt"}, true} },
		"sightline/files":         func(string) row { return row{"", []string{"files"}, true} },
		"sightline/history":       func(string) row { return row{"", []string{"history", "f.txt"}, true} },
		"sightline/diff":          func(string) row { return row{"", []string{"diff", "f.txt"}, true} },
		"sightline/rollback":      func(string) row { return row{"", []string{"rollback", "f.txt", "1", "--dry-run"}, true} },
		"sightline/open":          func(string) row { return row{"", []string{"open", "f.txt:2"}, true} },
		"sightline/stats":         func(string) row { return row{"", []string{"stats"}, false} },
		"sightline/approvals":     func(string) row { return row{"", []string{"approvals"}, true} },
		"sightline/session/reset": func(string) row { return row{"", []string{"session", "reset", "--session", "other"}, true} },
		"sightline/audit":         func(string) row { return row{"", []string{"audit", "--limit", "1"}, false} },
		"sightline/sessions":      func(string) row { return row{"", []string{"session", "list"}, false} },
		"sightline/shown": func(dir string) row {
			return row{event(dir, "PostToolUse", "Read", map[string]any{"file_path": filepath.Join(dir, "f.txt")},
				map[string]any{"type": "text", "file": map[string]any{"content": "a\nb", "startLine": 1}}), []string{"hook", "claude", "--root", dir}, true}
		},
		"sightline/check": func(dir string) row {
			return row{event(dir, "PreToolUse", "Edit", map[string]any{"file_path": filepath.Join(dir, "f.txt"), "old_string": "b", "new_string": "B"}, nil), []string{"hook", "claude", "--root", dir}, true}
		},
	}
	// The first read runs in the CLI's process and starts the daemon.
	off.run("", "read", "f.txt")
	c.run("", "read", "f.txt")
	waitDaemon(t, sockDir)
	c.run("", "daemon", "stop")
	_, log := startDaemon(t, c, sockDir)
	for _, op := range ops.Table() {
		mk, ok := rows[op.Method()]
		if !ok {
			// Its tool's example, through the CLI's derived command.
			_, _, cli, err := lsptest.Example(op, c.dir)
			if err != nil {
				t.Fatal(err)
			}
			mk = func(string) row { return row{"", cli, true} }
		}
		r, ro := mk(c.dir), mk(off.dir)
		want, wantErr, wantCode := off.run(ro.stdin, ro.cli...)
		got, gotErr, gotCode := c.run(r.stdin, r.cli...)
		if gotCode != wantCode {
			t.Fatalf("%s: exit %d through the daemon, %d in process\n%s%s\n---\n%s%s", op.Method(), gotCode, wantCode, got, gotErr, want, wantErr)
		}
		if r.words && (!bytes.Equal(normalize(got, c.dir), normalize(want, off.dir)) || !bytes.Equal(normalize(gotErr, c.dir), normalize(wantErr, off.dir))) {
			t.Fatalf("%s: through the daemon:\n%s%s\nin process:\n%s%s", op.Method(), got, gotErr, want, wantErr)
		}
	}
	b, _ := os.ReadFile(log)
	served := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		var l struct {
			Msg, Method string
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "daemon: call" {
			served++
		}
	}
	// apply streams (one call per chunk and the close); open asks no one.
	if served < len(ops.Table()) {
		t.Fatalf("the daemon served %d calls of %d:\n%s", served, len(ops.Table()), b)
	}
	got, _, _ := c.run("", "ledger", "--json")
	want, _, _ := off.run("", "ledger", "--json")
	if !bytes.Equal(normalize(got, c.dir), normalize(want, off.dir)) {
		t.Fatalf("ledgers differ:\ndaemon:\n%s\nin process:\n%s", got, want)
	}
}

// TestDaemonWholeReadIsTheSame: a whole read of a large file holding every
// byte JSON escapes prints, as text and as --json, what the same read in
// the command's own process prints, byte for byte (its content travels
// from the daemon apart from the answer's JSON).
func TestDaemonWholeReadIsTheSame(t *testing.T) {
	var line strings.Builder
	line.WriteString("\tfunc f() { s := \"a\\tb\\\\\" // é € \u2028 𝄞 ")
	for c := 1; c < 0x20; c++ {
		if c != '\n' && c != '\r' {
			line.WriteByte(byte(c))
		}
	}
	line.WriteString("\x7f}\n")
	files := map[string]string{"big.go": strings.Repeat(line.String(), 40000)}
	c, sockDir := daemonCLI(t, files)
	off := newCLI(t, files)
	off.env = append(off.env, "SIGHTLINE_DAEMON=0")
	off.run("", "read", "big.go:1-2")
	c.run("", "read", "big.go:1-2")
	waitDaemon(t, sockDir)
	c.run("", "daemon", "stop")
	_, log := startDaemon(t, c, sockDir)
	for _, args := range [][]string{{"read", "big.go", "--budget", "100000000"}, {"read", "big.go", "--budget", "100000000", "--json"}} {
		want, wantErr, wantCode := off.run("", args...)
		got, gotErr, gotCode := c.run("", args...)
		if gotCode != wantCode || !bytes.Equal(normalize(got, c.dir), normalize(want, off.dir)) || !bytes.Equal(normalize(gotErr, c.dir), normalize(wantErr, off.dir)) {
			t.Fatalf("%v: through the daemon (exit %d, %d bytes):\n%.300q%s\nin process (exit %d, %d bytes):\n%.300q%s", args, gotCode, len(got), got, gotErr, wantCode, len(want), want, wantErr)
		}
		if len(want) < len(files["big.go"]) {
			t.Fatalf("%v: %d bytes printed, want the whole file", args, len(want))
		}
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), `"daemon: call"`) < 2 {
		t.Fatalf("the daemon did not serve the reads:\n%s", b)
	}
}

// normalize drops the workspace's path from an answer.
func normalize(s, dir string) []byte { return []byte(strings.ReplaceAll(s, dir, "WS")) }

// TestDaemonReadsAndEditsInTurn: a process that lives on (the daemon) reads
// and edits one file in turn, each edit by refs of the read before, as an
// agent does; each edit applies, as it does when every call is a process
// of its own.
func TestDaemonReadsAndEditsInTurn(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\nc\n"})
	startDaemon(t, c, sockDir)
	cur := "b"
	for _, next := range []string{"B", "b2", "b3"} {
		if out, errOut, code := c.run("", "read", "f.txt:2-2"); code != 0 || !strings.Contains(out, "|"+cur) {
			t.Fatalf("read: %d %s %s", code, out, errOut)
		}
		edits := `[{"type":"replace_line","ref":"` + ref(2, cur) + `","new_content":"` + next + `"}]`
		if out, errOut, code := c.run(edits, "edit", "f.txt", "--edits", "-"); code != 0 {
			t.Fatalf("edit %s -> %s through the daemon: %d\n%s%s", cur, next, code, out, errOut)
		}
		cur = next
	}
}

// TestStoppedDaemon: a daemon that does not answer (kill -STOP) is treated
// as a server that does not answer: a read runs on disk with a warning, a
// write is refused with nothing written (its memory of the sessions would
// fall behind a write on disk).
func TestStoppedDaemon(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\n"})
	d, _ := startDaemon(t, c, sockDir)
	if _, _, code := c.run("", "read", "f.txt"); code != 0 {
		t.Fatal("read through the daemon")
	}
	if err := d.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer d.Process.Signal(syscall.SIGCONT)
	out, errOut, code := c.run("", "read", "f.txt:1-1")
	if code != 0 || !strings.Contains(out, "|a") || !strings.Contains(errOut, "did not answer") {
		t.Fatalf("read beside a stopped daemon: %d %s %s", code, out, errOut)
	}
	edits := `[{"type":"replace_line","ref":"` + ref(2, "b") + `","new_content":"B"}]`
	_, errOut, code = c.run(edits, "edit", "f.txt", "--edits", "-")
	if code != 1 || !strings.Contains(errOut, "timeout") {
		t.Fatalf("edit beside a stopped daemon: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "f.txt")); string(b) != "a\nb\n" {
		t.Fatalf("the file was written: %q", b)
	}
	// The refusal is audited, as every refusal is, though no server ran
	// the call.
	d.Process.Signal(syscall.SIGCONT)
	out, errOut, code = c.run("", "audit", "--json")
	if code != 0 || !strings.Contains(out, `"method":"sightline/edit","path":"f.txt","outcome":"refused","error":"timeout"`) {
		t.Fatalf("the audit after the refused edit: %d %s %s", code, out, errOut)
	}
}

// TestDaemonExitsWhenItsWorkspaceIsRemoved: a daemon whose workspace root
// is removed exits.
func TestDaemonExitsWhenItsWorkspaceIsRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the daemon is not started on Windows")
	}
	c := newCLI(t, nil)
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(c.bin, "daemon", "--root", ws)
	cmd.Dir, cmd.Env = ws, c.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	// Its socket appears once it serves.
	d := *c
	d.dir = ws
	sockDir, err := bridge.Dir(stateDirOf(t, &d))
	if err != nil {
		t.Fatal(err)
	}
	waitDaemon(t, sockDir)
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the daemon did not exit when its workspace was removed")
	}
}

// TestMCPUsesTheDaemon: sightline mcp hands its calls to a running daemon
// (it starts none itself: it lives on), and what it read is the ledger the
// CLI then sees through the daemon.
func TestMCPUsesTheDaemon(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\nc\n"})
	_, log := startDaemon(t, c, sockDir)
	s := mcpSession(t, c)
	if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "f.txt", "session": "m"}); isErr || !strings.Contains(text, "|b") {
		t.Fatalf("MCP read: %v %s", isErr, text)
	}
	if out, _, _ := c.run("", "ledger", "f.txt", "--session", "m"); !strings.Contains(out, "fully_read") {
		t.Fatalf("the CLI's ledger of the MCP session:\n%s", out)
	}
	b, _ := os.ReadFile(log)
	if !strings.Contains(string(b), `"method":"sightline/read"`) {
		t.Fatalf("the daemon did not serve the MCP read:\n%s", b)
	}
}

// TestPatchNotUTF8ThroughTheDaemon: a patch made of a Latin-1 file's raw
// bytes, which no message to the daemon can carry, is not taken for a
// daemon gone: the disk takes it, as the daemon would, and refuses it
// saying it is not UTF-8 and naming the file's encoding.
func TestPatchNotUTF8ThroughTheDaemon(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"m.txt": "Caf\xe9 au lait\n", ".editorconfig": "[*.txt]\ncharset = latin1\n"})
	startDaemon(t, c, sockDir)
	c.run("", "read", "m.txt")
	out, errOut, code := c.run("--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-Caf\xe9 au lait\n+Caf\xe9 noir\n", "patch")
	if code != 1 || !strings.Contains(out+errOut, "not UTF-8") || !strings.Contains(out+errOut, "ISO-8859-1") {
		t.Fatalf("Latin-1 bytes: %d\n%s%s", code, out, errOut)
	}
	t.Log(out + errOut)
	if got, _ := os.ReadFile(filepath.Join(c.dir, "m.txt")); string(got) != "Caf\xe9 au lait\n" {
		t.Fatalf("m.txt: %q", got)
	}
}
