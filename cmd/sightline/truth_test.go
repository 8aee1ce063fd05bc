//go:build linux

package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/store"
)

// mcpProcess starts `sightline mcp` in c's workspace, as mcpSession does,
// and returns its process too.
func mcpProcess(t *testing.T, c *cli) (*exec.Cmd, *mcp.ClientSession) {
	t.Helper()
	cmd := exec.Command(c.bin, "mcp")
	cmd.Dir, cmd.Env = c.dir, c.env
	cl := mcp.NewClient(&mcp.Implementation{Name: "truth-test", Version: "1"}, nil)
	s, err := cl.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
		s.Close()
	})
	return cmd, s
}

// entryWritten reports whether the state database holds session's entry
// of file name (read as another process reads it: never waiting for a
// writer).
func entryWritten(t *testing.T, state, session, name string) bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(state, store.FileName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ledger_entries WHERE session = ? AND doc LIKE ?`, session, "%/"+name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// waitStopped waits (bounded) until every thread of process pid is
// stopped: a signal stops them as each is next scheduled, not at kill.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		if err != nil || len(tasks) == 0 {
			t.Fatalf("threads of %d: %v", pid, err)
		}
		stopped := true
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			if i := strings.LastIndexByte(string(b), ')'); err == nil && (i < 0 || i+2 >= len(b) || b[i+2] != 'T') {
				stopped = false
				break
			}
		}
		if stopped {
			return
		}
	}
	t.Fatalf("process %d did not stop", pid)
}

// waitWritten waits (bounded) for session's entry of name to be written.
func waitWritten(t *testing.T, state, session, name string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if entryWritten(t, state, session, name) {
			return
		}
	}
	t.Fatalf("%s's entry of %s was not written", session, name)
}

// TestDaemonTakesInTheReadsOfAnMCPThatWroteLate: sightline mcp, with no
// daemon, reads a file; before its write-behind lands (held back: the
// database is locked meanwhile, then the MCP stopped, as a loaded machine
// may leave it), a command runs on disk and starts the daemon, which
// restores the file's entries without that read. Once the MCP's write
// lands, the daemon answers with it: through the CLI and through the MCP
// (now the daemon's client).
func TestDaemonTakesInTheReadsOfAnMCPThatWroteLate(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"w.txt": "w\n", "m.txt": "a\nb\nc\n"})
	state := stateDirOf(t, c)
	cmd, s := mcpProcess(t, c)
	// A first call opens the MCP's database (which a lock would fail).
	if _, isErr := callText(t, s, "sightline_read", map[string]any{"path": "w.txt", "session": "s"}); isErr {
		t.Fatal("MCP read of w.txt")
	}
	waitWritten(t, state, "s", "w.txt")
	db, err := sql.Open("sqlite", "file:"+filepath.Join(state, store.FileName)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lock, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	name := "m.txt"
	if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": name, "session": "s"}); isErr || !strings.Contains(text, "|c") {
		t.Fatalf("MCP read: %v %s", isErr, text)
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, cmd.Process.Pid)
	if _, err := lock.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	lock.Close()
	if entryWritten(t, state, "s", name) {
		t.Fatal("the MCP's read was written while the database was locked")
	}
	// On disk (no daemon runs), then through the daemon it started: the
	// read is not written yet, so neither knows it.
	if out, errOut, code := c.run("", "ledger", name, "--session", "s"); code != 0 || !strings.Contains(out, "never_read") {
		t.Fatalf("ledger on disk: %d %s %s", code, out, errOut)
	}
	waitDaemon(t, sockDir)
	if out, errOut, code := c.run("", "ledger", name, "--session", "s"); code != 0 || !strings.Contains(out, "never_read") {
		t.Fatalf("ledger through the daemon: %d %s %s", code, out, errOut)
	}
	if len(daemonPIDs(c.dir)) != 1 {
		t.Fatalf("daemons: %v", daemonPIDs(c.dir))
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
	waitWritten(t, state, "s", name)
	if got := c.known("s", name); !got.Covers(ledger.Range{Start: 1, End: 3}) {
		t.Fatalf("the daemon's ledger after the MCP's read landed: %v, want 1-3", got.Ranges())
	}
	if text, _ := callText(t, s, "sightline_ledger", map[string]any{"path": name, "session": "s"}); !strings.Contains(text, "fully_read") {
		t.Fatalf("the MCP's ledger: %s", text)
	}
}

// TestEveryDoorAnswersTheSameLedger interleaves, in a random order of a
// logged seed (SIGHTLINE_TRUTH_SEED replays one), reads through each door
// of one session (a long-lived sightline mcp, commands that start the
// daemon or not, Claude Code's hook), the daemon's stops and starts, the
// MCP's restarts and an editor's server starting and stopping; after
// each step, the CLI and the MCP answer the union of what any door
// showed, within a bound (a door's write lands a few milliseconds after
// its answer, and every process that lives on takes it in), and so does
// the hook's guard.
func TestEveryDoorAnswersTheSameLedger(t *testing.T) {
	const lines = 20
	var text strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": text.String()})
	c.env = append(c.env, "CLAUDE_PROJECT_DIR="+c.dir)
	quiet := c.withEnv("SIGHTLINE_DAEMON=0") // uses a running daemon, starts none
	const session = "claude-t"               // the hook's session of Claude's "t"
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SIGHTLINE_TRUTH_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d (SIGHTLINE_TRUTH_SEED replays it)", seed)
	rnd := rand.New(rand.NewPCG(seed, seed))
	steps := 30
	if testing.Short() {
		steps = 12
	}
	_, s := mcpProcess(t, c)
	var editor *lsptest.Editor // an editor's server running in this process, if any
	var want ledger.RangeSet
	lag := 0 // steps after which a door first answered otherwise
	for i := range steps {
		began := time.Now()
		a := 1 + rnd.IntN(lines)
		b := min(lines, a+rnd.IntN(4))
		shown := ledger.Range{Start: a, End: b}
		var did string
		switch k := rnd.IntN(12); {
		case k < 3:
			did = fmt.Sprintf("mcp read %d-%d", a, b)
			if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "f.txt", "start": a, "end": b, "session": session}); isErr || !strings.Contains(text, fmt.Sprintf("|line %d", b)) {
				t.Fatalf("step %d, %s: %v %s", i, did, isErr, text)
			}
			want.Add(shown)
		case k < 5:
			cl, how := c, "starting the daemon"
			if rnd.IntN(2) == 0 {
				cl, how = quiet, "not starting the daemon"
			}
			did = fmt.Sprintf("cli read %d-%d, %s", a, b, how)
			if out, errOut, code := cl.run("", "read", fmt.Sprintf("f.txt:%d-%d", a, b), "--session", session); code != 0 || !strings.Contains(out, fmt.Sprintf("|line %d", b)) {
				t.Fatalf("step %d, %s: %d %s %s", i, did, code, out, errOut)
			}
			want.Add(shown)
		case k < 7:
			did = fmt.Sprintf("hook read %d-%d", a, b)
			var content []string
			for n := a; n <= b; n++ {
				content = append(content, fmt.Sprintf("line %d", n))
			}
			ev := claudeEvent(c.dir, "PostToolUse", "Read", map[string]any{"file_path": filepath.Join(c.dir, "f.txt")},
				map[string]any{"type": "text", "file": map[string]any{"content": strings.Join(content, "\n"), "startLine": a}})
			ev = strings.Replace(ev, `"session_id":"table"`, `"session_id":"t"`, 1)
			if out, errOut, code := c.run(ev, "hook", "claude"); code != 0 {
				t.Fatalf("step %d, %s: %d %s %s", i, did, code, out, errOut)
			}
			want.Add(shown)
		case k < 9:
			did = "daemon stop"
			if out, errOut, code := c.run("", "daemon", "stop"); code != 0 {
				t.Fatalf("step %d, %s: %d %s %s", i, did, code, out, errOut)
			}
			// A daemon a command is starting may outlive the stop: as a
			// user's would.
		case k < 10:
			did = "mcp restart"
			s.Close()
			_, s = mcpProcess(t, c)
		case editor == nil:
			// Its calls win: the daemon is asked to exit, the others
			// hand theirs to it.
			did = "an editor's server starts"
			editor = startEditor(t, c)
		default:
			did = "the editor's server stops"
			if code := editor.Shutdown(); code != 0 {
				t.Fatalf("step %d, %s: exit %d", i, did, code)
			}
			editor = nil
		}
		t.Logf("step %d: %s (daemon: %v) in %v", i, did, len(bridgeDaemons(sockDir)) > 0, time.Since(began).Round(time.Millisecond))
		began = time.Now()
		first := true
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			cliSaw := quiet.known(session, "f.txt")
			mcpText, _ := callText(t, s, "sightline_ledger", map[string]any{"path": "f.txt", "session": session})
			mcpSaw := readOf(mcpText)
			if cliSaw.Equal(&want) && mcpSaw == ledger.List(want.Ranges()) {
				if !first {
					t.Logf("step %d: the doors agreed after %v", i, time.Since(began).Round(time.Millisecond))
				}
				break
			}
			if first {
				lag++
				first = false
			}
			if time.Now().After(deadline) {
				t.Fatalf("step %d (%s, seed %d): want read %s; the CLI answers %s, the MCP %q", i, did, seed, ledger.List(want.Ranges()), ledger.List(cliSaw.Ranges()), mcpText)
			}
		}
		if rnd.IntN(3) > 0 {
			continue
		}
		// The hook's guard is a door too: an edit of a line is allowed
		// exactly when the line was shown through any door. A refusal
		// shows it (the guard hands the lines over).
		n := 1 + rnd.IntN(lines)
		ev := claudeEvent(c.dir, "PreToolUse", "Edit", map[string]any{"file_path": filepath.Join(c.dir, "f.txt"), "old_string": fmt.Sprintf("line %d\n", n), "new_string": "changed\n"}, nil)
		ev = strings.Replace(ev, `"session_id":"table"`, `"session_id":"t"`, 1)
		out, errOut, code := c.run(ev, "hook", "claude")
		if code != 0 {
			t.Fatalf("step %d, the hook's check of line %d: %d %s %s", i, n, code, out, errOut)
		}
		denied := strings.Contains(out, `"permissionDecision":"deny"`)
		if denied == want.Contains(n) {
			t.Fatalf("step %d (seed %d): the hook's check of line %d (read %s): denied %v: %s", i, seed, n, ledger.List(want.Ranges()), denied, out)
		}
		if denied {
			want.Add(ledger.Range{Start: n, End: n})
		}
		t.Logf("step %d: the hook's check of line %d, denied %v", i, n, denied)
	}
	t.Logf("%d of %d steps: a door first answered before another's write landed", lag, steps)
}

// bridgeDaemons lists the daemons' sockets in sockDir.
func bridgeDaemons(sockDir string) []string {
	var out []string
	for _, p := range bridge.Sockets(sockDir) {
		if bridge.IsDaemon(p) {
			out = append(out, p)
		}
	}
	return out
}

// readOf is the lines an answer of sightline_ledger for one file says
// were read, as ledger.List writes them ("" for none).
func readOf(text string) string {
	for _, line := range strings.Split(text, "\n") {
		for _, part := range strings.Split(line, "  ") {
			if r, ok := strings.CutPrefix(part, "read "); ok {
				return r
			}
		}
	}
	return ""
}
