package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// walOf returns the size of the one state database's write-ahead log under
// the state home.
func walOf(t *testing.T, state string) int64 {
	t.Helper()
	wals, _ := filepath.Glob(filepath.Join(state, "sightline", "*", "state.db-wal"))
	if len(wals) != 1 {
		t.Fatalf("want one state database's log under %s, found %v", state, wals)
	}
	fi, err := os.Stat(wals[0])
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A CLI command's process exits when its call is answered: it leaves the
// state database to the exit instead of checkpointing it (four syncs per
// command), and the next command finds what it recorded in the log. A
// test calling run() is no such process: it closes the database.
func TestCLILeavesTheStateDatabaseToItsExit(t *testing.T) {
	c := newCLI(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	state := t.TempDir()
	c.env = append(c.env, "XDG_STATE_HOME="+state, "SIGHTLINE_DAEMON=0")
	if out, errOut, code := c.run("", "read", "a.txt:1-2"); code != 0 {
		t.Fatalf("read: %d\n%s%s", code, out, errOut)
	}
	if walOf(t, state) == 0 {
		t.Fatal("the command checkpointed the state database as it ended")
	}
	out, errOut, code := c.run("", "ledger", "a.txt", "--json")
	if code != 0 || !strings.Contains(out, `"start":1,"end":2`) {
		t.Fatalf("the next command does not see the read the first one left in the log: %d\n%s%s", code, out, errOut)
	}

	run := inProcess(t, c.dir)
	if out, errOut, code := run("", "read", "a.txt:1-2"); code != 0 {
		t.Fatalf("read in process: %d\n%s%s", code, out, errOut)
	}
	if n := walOf(t, os.Getenv("XDG_STATE_HOME")); n != 0 {
		t.Errorf("run() in a test left %d bytes of log: it left the database open in a process that goes on", n)
	}
}
