//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

// runWithin runs the CLI and fails the test when it has not answered within
// limit (it is then killed, so a hang ends the test instead of the suite).
func (c *cli) runWithin(limit time.Duration, stdin string, args ...string) (string, string, int, time.Duration) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir = filepath.Join(c.dir, c.cwd)
	cmd.Env = c.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		c.t.Fatalf("sightline %s: no answer within %v\n%s%s", strings.Join(args, " "), limit, out.String(), errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), code, took
}

// TestStoppedServerIsSkipped: a `sightline serve` stopped with SIGSTOP (what
// Ctrl-Z does) still has its socket, and the kernel still accepts connections
// on it, but nothing answers. A read answers from the disk within the bound
// and says so; a write is refused `timeout` with nothing written, and stays
// unwritten when the server resumes.
func TestStoppedServerIsSkipped(t *testing.T) {
	c := newCLI(t, map[string]string{"f.py": diskText})
	srv := startServer(t, c)
	if out, errOut, code := c.run("", "read", "f.py"); code != 0 || !strings.Contains(out, "return 1") {
		t.Fatalf("read through the live server: %d %s %s", code, out, errOut)
	}
	pid := srv.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)

	const bound = 8 * time.Second
	out, errOut, code, took := c.runWithin(bound, "", "read", "f.py")
	if code != 0 || !strings.Contains(out, "return 1") || !strings.Contains(errOut, "did not answer") || !strings.Contains(errOut, "disk") {
		t.Fatalf("read with a stopped server must answer from disk with a warning: %d\n%s%s", code, out, errOut)
	}
	t.Logf("read with the server stopped answered in %v", took.Round(time.Millisecond))

	_, errOut, code, took = c.runWithin(bound, "x = 1\n", "write", "f.py", "--mode", "overwrite")
	if code != 1 || !strings.Contains(errOut, "timeout") || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("write with a stopped server must be refused timeout: %d\n%s", code, errOut)
	}
	t.Logf("write with the server stopped refused in %v", took.Round(time.Millisecond))

	// sightline mcp, a long-lived caller, is bounded alike.
	s := mcpSession(t, c)
	done := make(chan string, 1)
	go func() {
		text, _ := callText(t, s, "sightline_read", map[string]any{"path": "f.py"})
		done <- text
	}()
	select {
	case text := <-done:
		if !strings.Contains(text, "return 1") || !strings.Contains(text, "did not answer") {
			t.Fatalf("MCP read with a stopped server: %s", text)
		}
	case <-time.After(bound):
		t.Fatalf("MCP read: no answer within %v", bound)
	}
	go func() {
		text, isErr := callText(t, s, "sightline_write", map[string]any{"path": "f.py", "mode": "overwrite", "content": "y = 2\n"})
		if !isErr {
			text = "not refused: " + text
		}
		done <- text
	}()
	select {
	case text := <-done:
		if !strings.HasPrefix(text, "timeout") && !strings.Contains(text, "\ntimeout: ") {
			t.Fatalf("MCP write with a stopped server must be refused timeout: %s", text)
		}
	case <-time.After(bound):
		t.Fatalf("MCP write: no answer within %v", bound)
	}

	resume()
	time.Sleep(300 * time.Millisecond) // let the resumed server drain what was queued
	if b, _ := os.ReadFile(filepath.Join(c.dir, "f.py")); string(b) != diskText {
		t.Fatalf("a refused write was written after the server resumed: %q", b)
	}
	if out, errOut, code := c.run("", "read", "f.py"); code != 0 || strings.Contains(errOut, "did not answer") {
		t.Fatalf("read after the server resumed: %d %s %s", code, out, errOut)
	}
}

// TestSocketFolderOfAnotherUser: when the folder of the workspace's sockets
// belongs to another user, no server can be reached through it (nor listen
// in it). Every answer says so, and a write is refused: an editor may hold
// the file's unsaved buffer.
func TestSocketFolderOfAnotherUser(t *testing.T) {
	needRoot(t)
	c := newCLI(t, map[string]string{"f.py": diskText})
	state, err := os.MkdirTemp("", "sl") // short: the sockets' folder is state/bridge
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	sock := filepath.Join(state, "bridge")
	if err := os.Mkdir(sock, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(sock, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "SIGHTLINE_STATE_DIR="+state)
	// The editor's server cannot listen there either: its user is told.
	ed := lsptest.Start(t, lsptest.Options{Root: c.dir, Server: server.Options{Bridge: true, StateDir: state}})
	ed.WaitNote("window/showMessage")
	var notes string
	for _, n := range ed.Notes() {
		notes += n.Method + " " + string(n.Params) + "\n"
	}
	if !strings.Contains(notes, "cannot reach this language server") || !strings.Contains(notes, sock) {
		t.Fatalf("the editor's user is not told that the socket folder is unusable: %s", notes)
	}

	out, errOut, code := c.run("", "read", "f.py")
	if code != 0 || !strings.Contains(out, "return 1") || !strings.Contains(errOut, "cannot be reached") || !strings.Contains(errOut, sock) {
		t.Fatalf("read must answer from disk and warn about the socket folder: %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = c.run("x = 1\n", "write", "f.py", "--mode", "overwrite")
	if code != 1 || !strings.Contains(errOut, "io_error") || !strings.Contains(errOut, "Nothing was written") || !strings.Contains(errOut, sock) {
		t.Fatalf("write must be refused naming the socket folder: %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "f.py")); string(b) != diskText {
		t.Fatalf("the refused write changed the file: %q", b)
	}
	// Told there is no editor, the CLI writes the disk.
	c.env = append(c.env, "SIGHTLINE_NO_BRIDGE=1")
	if _, errOut, code := c.run("x = 1\n", "write", "f.py", "--mode", "overwrite"); code != 0 {
		t.Fatalf("write with SIGHTLINE_NO_BRIDGE=1: %d %s", code, errOut)
	}
}

// TestSessionCommandsThroughTheServer: with a server running, `session
// reset`, `audit` and `approvals` are the server's: a reset is seen by the
// next ledger the server answers, and the audit shows the server's calls at
// once.
func TestSessionCommandsThroughTheServer(t *testing.T) {
	c := newCLI(t, map[string]string{"f.py": diskText})
	startServer(t, c)
	if _, errOut, code := c.run("", "read", "f.py"); code != 0 {
		t.Fatalf("read: %s", errOut)
	}
	if out, _, _ := c.run("", "ledger", "f.py", "--json"); !strings.Contains(out, `"state":"fully_read"`) {
		t.Fatalf("ledger after the read: %s", out)
	}
	if out, errOut, code, _ := c.runWithin(20*time.Second, "", "audit", "--json", "--path", "f.py"); code != 0 || !strings.Contains(out, `"method":"sightline/read"`) {
		t.Fatalf("audit through the server must show its read: %d %s %s", code, out, errOut)
	}
	if out, errOut, code, _ := c.runWithin(20*time.Second, "", "session", "reset"); code != 0 || !strings.Contains(out, "reset") {
		t.Fatalf("session reset: %d %s %s", code, out, errOut)
	}
	if out, _, _ := c.run("", "ledger", "f.py", "--json"); strings.Contains(out, `"state":"fully_read"`) {
		t.Fatalf("the server's ledger still shows the file read after session reset: %s", out)
	}
	if out, errOut, code, _ := c.runWithin(20*time.Second, "", "approvals", "--json"); code != 0 || !strings.Contains(out, `"approvals":[]`) {
		t.Fatalf("approvals through the server: %d %s %s", code, out, errOut)
	}
}

// TestPathNamingAFolder: a path ending in a separator names a folder; a
// write to it is refused, not made a file of the folder's name.
func TestPathNamingAFolder(t *testing.T) {
	c := newCLI(t, map[string]string{"f.py": diskText})
	_, errOut, code := c.run("x\n", "write", "newdir/", "--mode", "create")
	if code == 0 || !strings.Contains(errOut, "folder") {
		t.Fatalf("write newdir/: %d %s", code, errOut)
	}
	if _, err := os.Lstat(filepath.Join(c.dir, "newdir")); !os.IsNotExist(err) {
		t.Fatalf("write newdir/ made %s: %v", filepath.Join(c.dir, "newdir"), err)
	}
	s := mcpSession(t, c)
	text, isErr := callText(t, s, "sightline_write", map[string]any{"path": "newdir/", "mode": "create", "content": "x\n"})
	if !isErr || !strings.Contains(text, "folder") {
		t.Fatalf("MCP write newdir/: %s", text)
	}
	if _, err := os.Lstat(filepath.Join(c.dir, "newdir")); !os.IsNotExist(err) {
		t.Fatalf("MCP write newdir/ made newdir: %v", err)
	}
}

// TestServerStoppedMidCall: a call may take as long as the server needs (an
// editor asking its user whether a sensitive file may be written), but when
// the server stops answering during it, the caller gives up within the
// bound: a write is refused `timeout`, saying its outcome is not known.
func TestServerStoppedMidCall(t *testing.T) {
	c := newCLI(t, map[string]string{".env": "KEY=1\n"})
	// The editor can be asked (window.showMessage) but never answers.
	srv := startServerCaps(t, c, `{"window":{"showMessage":{}}}`)
	pid := srv.Process.Pid
	type answer struct {
		errOut string
		code   int
		took   time.Duration
	}
	done := make(chan answer, 1)
	go func() {
		_, errOut, code, took := c.runWithin(30*time.Second, "KEY=2\n", "write", ".env", "--mode", "overwrite")
		done <- answer{errOut, code, took}
	}()
	// Longer than a probe's wait: a server that answers its probes is waited on.
	select {
	case a := <-done:
		t.Fatalf("the write answered while the editor was still asking: %+v", a)
	case <-time.After(5 * time.Second):
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	stopped := time.Now()
	a := <-done
	t.Logf("the write answered %v after the server stopped (%v in all)", time.Since(stopped).Round(time.Millisecond), a.took.Round(time.Millisecond))
	if a.code != 1 || !strings.Contains(a.errOut, "timeout") || !strings.Contains(a.errOut, "not known") {
		t.Fatalf("a write whose server stopped mid-call: %d %s", a.code, a.errOut)
	}
	if d := time.Since(stopped); d > 8*time.Second {
		t.Fatalf("the write answered %v after the server stopped", d)
	}
}
