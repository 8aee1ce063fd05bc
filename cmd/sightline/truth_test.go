//go:build linux

package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sightline-lsp/sightline/ledger"
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
// daemon, reads a file; before its write-behind lands (it is stopped, as
// a loaded machine may leave it), a command runs on disk and starts the
// daemon, which restores the file's entries without that read. Once the
// MCP's write lands, the daemon answers with it: through the CLI and
// through the MCP (now the daemon's client).
func TestDaemonTakesInTheReadsOfAnMCPThatWroteLate(t *testing.T) {
	c, sockDir := daemonCLI(t, nil)
	state := stateDirOf(t, c)
	cmd, s := mcpProcess(t, c)
	name := ""
	for attempt := range 5 {
		name = fmt.Sprintf("m%d.txt", attempt)
		os.WriteFile(filepath.Join(c.dir, name), []byte("a\nb\nc\n"), 0o644)
		if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": name, "session": "s"}); isErr || !strings.Contains(text, "|c") {
			t.Fatalf("MCP read: %v %s", isErr, text)
		}
		// Its write-behind held back; a write that landed meanwhile (the
		// flush ran between the answer and the stop): another file.
		if err := syscall.Kill(cmd.Process.Pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		if !entryWritten(t, state, "s", name) {
			break
		}
		syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
		if attempt == 4 {
			t.Skip("the MCP's write-behind always landed before it could be held back")
		}
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
