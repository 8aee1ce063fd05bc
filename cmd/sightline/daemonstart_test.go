//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/ledger"
)

// confinedBin: the test binary run with it set to a sightline binary is
// that binary run with no_new_privs set, as a sandbox sets it (Landlock and
// seccomp filters need it), inherited by the daemon it starts.
const confinedBin = "SIGHTLINE_TEST_CONFINED_BIN"

func init() {
	bin := os.Getenv(confinedBin)
	if bin == "" {
		return
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no_new_privs:", err)
		os.Exit(2)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, confinedBin+"=") {
			env = append(env, kv)
		}
	}
	err := syscall.Exec(bin, append([]string{bin}, os.Args[1:]...), env)
	fmt.Fprintln(os.Stderr, "exec:", err)
	os.Exit(2)
}

// confined returns the same workspace whose commands run with no_new_privs.
func (c *cli) confined() *cli {
	d := c.withEnv(confinedBin + "=" + c.bin)
	d.bin = os.Args[0]
	return d
}

// noNewPrivs reports whether process pid runs with no_new_privs.
func noNewPrivs(t *testing.T, pid int) bool {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), "NoNewPrivs:\t1")
}

// withoutEnv returns the same workspace with key unset.
func (c *cli) withoutEnv(key string) *cli {
	d := *c
	d.env = nil
	for _, kv := range c.env {
		if !strings.HasPrefix(kv, key+"=") {
			d.env = append(d.env, kv)
		}
	}
	return &d
}

// noDaemonWithin fails if a daemon of c's workspace runs within d.
func noDaemonWithin(t *testing.T, c *cli, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if pids := daemonPIDs(c.dir); len(pids) > 0 {
			t.Fatalf("a daemon was started: %v", pids)
		}
	}
}

// readStarts reads f.txt's first line ("a"), which starts a daemon, and
// waits for it to listen.
func readStarts(t *testing.T, c *cli, sockDir string) {
	t.Helper()
	if out, errOut, code := c.run("", "read", "f.txt:1-1"); code != 0 || !strings.Contains(out, "|a") {
		t.Fatalf("read: %d %s %s", code, out, errOut)
	}
	waitDaemon(t, sockDir)
}

// TestDaemonIsOnByDefault: on Linux, a command that finds no server starts
// the workspace's daemon with SIGHTLINE_DAEMON unset, and the next command
// goes to it.
func TestDaemonIsOnByDefault(t *testing.T) {
	d, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\nc\n"})
	c := d.withoutEnv("SIGHTLINE_DAEMON")
	readStarts(t, c, sockDir)
	if out, errOut, code := c.run("", "read", "f.txt:2-2"); code != 0 || !strings.Contains(out, "|b") {
		t.Fatalf("read through the daemon: %d %s %s", code, out, errOut)
	}
	if got := c.known("default", "f.txt"); !got.Covers(ledger.Range{Start: 1, End: 2}) {
		t.Fatalf("the daemon's ledger holds %v, want lines 1-2", got.Ranges())
	}
}

// TestDaemonThatDidNotLastIsNotStartedAgain: a daemon the CLI started that
// was killed (as a sandbox ends what a command leaves running) is not
// started again by every next command, only once the mark of its start is
// old; one stopped as daemons stop is started again at once.
func TestDaemonThatDidNotLastIsNotStartedAgain(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\nc\n"})
	readStarts(t, c, sockDir)
	for _, pid := range daemonPIDs(c.dir) {
		syscall.Kill(pid, syscall.SIGKILL)
		waitGone(t, pid, 5*time.Second)
	}
	for i := range 3 {
		if out, errOut, code := c.run("", "read", "f.txt:2-2"); code != 0 || !strings.Contains(out, "|b") {
			t.Fatalf("read %d after the kill: %d %s %s", i, code, out, errOut)
		}
	}
	noDaemonWithin(t, c, 1500*time.Millisecond)

	// Once the mark is old, the next command starts one.
	marker := filepath.Join(sockDir, "daemon.started")
	old := time.Now().Add(-11 * time.Minute)
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatalf("the mark of the daemon's start: %v", err)
	}
	if _, errOut, code := c.run("", "read", "f.txt:3-3"); code != 0 {
		t.Fatalf("read: %d %s", code, errOut)
	}
	waitDaemon(t, sockDir)
	if got := c.known("default", "f.txt"); !got.Covers(ledger.Range{Start: 1, End: 3}) {
		t.Fatalf("ledger %v, want lines 1-3", got.Ranges())
	}

	// Stopped as daemons stop: the next command starts one again.
	if out, errOut, code := c.run("", "daemon", "stop"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("daemon stop: %d %s %s", code, out, errOut)
	}
	readStarts(t, c, sockDir)
}

// TestDaemonsOfAUserAreBounded: with SIGHTLINE_DAEMON_MAX daemons of the
// user running, another workspace's daemon exits at once, and that
// workspace's commands run in their own process.
func TestDaemonsOfAUserAreBounded(t *testing.T) {
	a, aSock := daemonCLI(t, map[string]string{"f.txt": "a\n"})
	a = a.withEnv("SIGHTLINE_DAEMON_MAX=1")
	b, bSock := daemonCLI(t, map[string]string{"g.txt": "g\n"})
	b = b.withEnv("XDG_STATE_HOME="+envOf(a, "XDG_STATE_HOME"), "SIGHTLINE_DAEMON_MAX=1")
	bSock, err := bridge.Dir(stateDirOf(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := a.run("", "read", "f.txt"); code != 0 {
		t.Fatalf("read in a: %d %s", code, errOut)
	}
	waitDaemon(t, aSock)
	out, errOut, code := b.run("", "daemon", "--root", b.dir)
	if code != 0 || !strings.Contains(errOut, "the most daemons") {
		t.Fatalf("a second daemon of the user: %d %s %s", code, out, errOut)
	}
	// The first command starts one, which finds no slot and exits; the
	// next ones do not start another (see TestDaemonThatDidNotLast...).
	for i := range 3 {
		if out, errOut, code := b.run("", "read", "g.txt"); code != 0 || !strings.Contains(out, "|g") {
			t.Fatalf("read %d in b: %d %s %s", i, code, out, errOut)
		}
		if i == 0 {
			for deadline := time.Now().Add(5 * time.Second); len(daemonPIDs(b.dir)) > 0 && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	noDaemonWithin(t, b, time.Second)
	if s := bridge.Sockets(bSock); len(s) != 0 {
		t.Fatalf("b's sockets: %v", s)
	}
}

// TestDaemonWaitsForCommandsUnderWay: a command that looked for a daemon
// before one listened works on disk; the daemon serves no call until that
// command has written its reads, so it does not restore the document
// without them and write its entry over theirs.
func TestDaemonWaitsForCommandsUnderWay(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "1\n2\n3\n4\n5\n6\n"})
	// The test holds the gate as a command under way does.
	release, err := bridge.EnterGate(context.Background(), sockDir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if release != nil {
			release()
		}
	}()
	startDaemon(t, c, sockDir)
	done := make(chan string, 1)
	go func() {
		out, errOut, code := c.run("", "read", "f.txt:3-4", "--session", "s")
		if code != 0 {
			out = errOut
		}
		done <- out
	}()
	select {
	case out := <-done:
		t.Fatalf("the daemon served a call while a command was under way: %s", out)
	case <-time.After(500 * time.Millisecond):
	}
	// What the command under way records, written before it lets go.
	disk := c.withEnv("SIGHTLINE_NO_BRIDGE=1")
	if _, errOut, code := disk.run("", "read", "f.txt:1-2", "--session", "s"); code != 0 {
		t.Fatalf("read on disk: %d %s", code, errOut)
	}
	release()
	release = nil
	select {
	case out := <-done:
		if !strings.Contains(out, "|3") {
			t.Fatalf("read through the daemon: %s", out)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the daemon did not serve the call once the gate was free")
	}
	if got := c.known("s", "f.txt"); !got.Covers(ledger.Range{Start: 1, End: 4}) {
		t.Fatalf("the daemon's ledger holds %v, want lines 1-4", got.Ranges())
	}
	// Written to the database by the daemon, the reads are there too.
	c.run("", "daemon", "stop")
	if got := disk.known("s", "f.txt"); !got.Covers(ledger.Range{Start: 1, End: 4}) {
		t.Fatalf("the database holds %v, want lines 1-4", got.Ranges())
	}
}

// TestDaemonServesItsConfinementOnly: a command confined otherwise than the
// daemon (here no_new_privs, as a sandbox sets) is not served by it: the
// daemon is asked to exit, the command runs in its own process and starts
// a daemon confined as it is; and the other way round.
func TestDaemonServesItsConfinementOnly(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"f.txt": "a\nb\nc\nd\n"})
	readStarts(t, c, sockDir)
	free := daemonPIDs(c.dir)
	if len(free) != 1 || noNewPrivs(t, free[0]) {
		t.Fatalf("the daemon started by an unconfined command: %v", free)
	}
	boxed := c.confined()
	if out, errOut, code := boxed.run("", "read", "f.txt:2-2"); code != 0 || !strings.Contains(out, "|b") {
		t.Fatalf("confined read: %d %s %s", code, out, errOut)
	}
	waitGone(t, free[0], 5*time.Second)
	waitDaemon(t, sockDir)
	var inside []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if inside = daemonPIDs(c.dir); len(inside) == 1 {
			break
		}
	}
	if len(inside) != 1 || !noNewPrivs(t, inside[0]) {
		t.Fatalf("the daemon started by the confined command: %v", inside)
	}
	if out, errOut, code := boxed.run("", "read", "f.txt:3-3"); code != 0 || !strings.Contains(out, "|c") {
		t.Fatalf("confined read through its daemon: %d %s %s", code, out, errOut)
	}
	if pids := daemonPIDs(c.dir); len(pids) != 1 || pids[0] != inside[0] {
		t.Fatalf("the confined daemon should have served the confined command: %v", pids)
	}
	// Unconfined again: that daemon is not used either.
	if out, errOut, code := c.run("", "read", "f.txt:4-4"); code != 0 || !strings.Contains(out, "|d") {
		t.Fatalf("unconfined read: %d %s %s", code, out, errOut)
	}
	waitGone(t, inside[0], 5*time.Second)
	if got := c.known("default", "f.txt"); !got.Covers(ledger.Range{Start: 1, End: 4}) {
		t.Fatalf("ledger %v, want lines 1-4", got.Ranges())
	}
}

// TestNoReadLostToCommandsAtOnce: commands of one session reading one
// document at once each restore its entry, add their read and write it
// back; every line each read is in the database afterwards, on disk alone
// (the writes merge with what the database holds) and across the daemon's
// start (the first command to end starts it: some of the others run on
// disk, the rest go to it, which writes its memory as it exits).
func TestNoReadLostToCommandsAtOnce(t *testing.T) {
	const n = 24
	var text strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	for _, daemon := range []bool{false, true} {
		t.Run(map[bool]string{false: "on disk", true: "across the daemon's start"}[daemon], func(t *testing.T) {
			c, sockDir := daemonCLI(t, map[string]string{"f.txt": text.String()})
			if !daemon {
				c = c.withEnv("SIGHTLINE_DAEMON=0")
			}
			errs := make(chan string, n)
			for i := 1; i <= n; i++ {
				go func() {
					time.Sleep(time.Duration(i) * 4 * time.Millisecond) // spread over the daemon's start
					out, errOut, code := c.run("", "read", fmt.Sprintf("f.txt:%d-%d", i, i), "--session", "race")
					if code != 0 || !strings.Contains(out, fmt.Sprintf("|line %d", i)) {
						errs <- fmt.Sprintf("read %d: %d %s %s", i, code, out, errOut)
						return
					}
					errs <- ""
				}()
			}
			for range n {
				if e := <-errs; e != "" {
					t.Error(e)
				}
			}
			if daemon {
				waitDaemon(t, sockDir)
			}
			// What the database holds once the daemon, if any, wrote its
			// memory as it exits.
			c.run("", "daemon", "stop")
			if got := c.withEnv("SIGHTLINE_NO_BRIDGE=1").known("race", "f.txt"); !got.Covers(ledger.Range{Start: 1, End: n}) {
				t.Fatalf("the database holds %v, want lines 1-%d", got.Ranges(), n)
			}
		})
	}
}
