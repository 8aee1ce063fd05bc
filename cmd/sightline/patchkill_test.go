//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPatchKillNineAllOrNone: a real `sightline patch` of 20 files (18
// modified, one created, one deleted, one renamed) is killed with SIGKILL
// at random moments; the next command that opens the state finishes or
// undoes the write, so the workspace then holds the old files or the new
// ones, never a mix. The counts are logged (go test -v).
func TestPatchKillNineAllOrNone(t *testing.T) {
	t.Parallel() // mostly waiting on processes and bounds: beside the other long ones
	const nFiles = 20
	c := newCLI(t, map[string]string{".sightline.json": `{"guard": "off"}`})
	old := func(i int) string {
		var b strings.Builder
		for l := range 400 {
			fmt.Fprintf(&b, "file %d line %d\n", i, l)
		}
		return b.String()
	}
	name := func(i int) string { return fmt.Sprintf("f%02d.txt", i) }
	var p strings.Builder
	for i := range nFiles - 2 {
		fmt.Fprintf(&p, "--- a/%s\n+++ b/%s\n@@ -200,3 +200,3 @@\n file %d line 199\n-file %d line 200\n+NEW %d\n file %d line 201\n", name(i), name(i), i, i, i, i)
	}
	del := name(nFiles - 2)
	fmt.Fprintf(&p, "--- a/%s\n+++ /dev/null\n@@ -1,400 +0,0 @@\n", del)
	for l := range 400 {
		fmt.Fprintf(&p, "-file %d line %d\n", nFiles-2, l)
	}
	fmt.Fprintf(&p, "diff --git a/%s b/moved.txt\nrename from %s\nrename to moved.txt\n", name(nFiles-1), name(nFiles-1))
	fmt.Fprintf(&p, "diff --git a/created.txt b/created.txt\nnew file mode 100644\n--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+created\n")
	patchText := p.String()

	reset := func() {
		for i := range nFiles {
			os.WriteFile(filepath.Join(c.dir, name(i)), []byte(old(i)), 0o644)
		}
		os.Remove(filepath.Join(c.dir, "moved.txt"))
		os.Remove(filepath.Join(c.dir, "created.txt"))
	}
	// state says how many of the patch's 21 changes are on disk (0: all
	// old, 21: all new), and whether anything else is there (a temp file).
	state := func() (int, string) {
		n := 0
		for i := range nFiles - 2 {
			b, _ := os.ReadFile(filepath.Join(c.dir, name(i)))
			if strings.Contains(string(b), fmt.Sprintf("NEW %d\n", i)) {
				n++
			}
		}
		if _, err := os.Stat(filepath.Join(c.dir, del)); os.IsNotExist(err) {
			n++
		}
		if _, err := os.Stat(filepath.Join(c.dir, "moved.txt")); err == nil {
			n++
			if _, err := os.Stat(filepath.Join(c.dir, name(nFiles-1))); err == nil {
				return -1, "the renamed file is under both names"
			}
		}
		if _, err := os.Stat(filepath.Join(c.dir, "created.txt")); err == nil {
			n++
		}
		ents, _ := os.ReadDir(c.dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".sightline-") {
				return n, "left behind: " + e.Name()
			}
		}
		return n, ""
	}
	const all = nFiles + 1
	run := func() *exec.Cmd {
		cmd := exec.Command(c.bin, "patch")
		cmd.Dir, cmd.Env = c.dir, append(c.env, "SIGHTLINE_NO_BRIDGE=1")
		cmd.Stdin = strings.NewReader(patchText)
		return cmd
	}
	// One whole run: how long the write takes, and that it applies.
	reset()
	c.run("", "ledger") // the state database exists before the timed runs
	begin := time.Now()
	if out, err := run().CombinedOutput(); err != nil {
		t.Fatalf("the patch: %v\n%s", err, out)
	}
	whole := time.Since(begin)
	if n, extra := state(); n != all || extra != "" {
		t.Fatalf("a whole run: %d of %d changes, %s", n, all, extra)
	}
	rng := rand.New(rand.NewPCG(19, uint64(time.Now().UnixNano())))
	runs, mixedBefore, mixedAfter, finished, killedOld := 0, 0, 0, 0, 0
	loop := time.Now()
	deadline := loop.Add(12 * time.Second)
	for runs < 100 && time.Now().Before(deadline) {
		reset()
		cmd := run()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The process's start (reading the patch, checking it) takes most
		// of its time: the kills lean to the later part, where it writes.
		time.Sleep(whole/3 + time.Duration(rng.Int64N(int64(whole)*3/4+1)))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		runs++
		if n, _ := state(); n > 0 && n < all {
			mixedBefore++
		}
		// Any command that opens the state recovers.
		if out, errOut, code := c.run("", "ledger"); code != 0 {
			t.Fatalf("the next start: %d\n%s%s", code, out, errOut)
		}
		n, extra := state()
		switch {
		case extra != "" || n < 0:
			t.Fatalf("run %d: after the next start: %s (%d of %d changes)", runs, extra, n, all)
		case n == all:
			finished++
		case n == 0:
			killedOld++
		default:
			mixedAfter++
			t.Errorf("run %d: %d of %d changes on disk after the next start", runs, n, all)
		}
	}
	t.Logf("kill -9 of a %d-file patch: %d runs in %v (a whole run %v), %d mixed right after the kill, %d mixed after the next start (%d all new, %d all old)",
		nFiles, runs, time.Since(loop).Round(time.Millisecond), whole.Round(time.Millisecond), mixedBefore, mixedAfter, finished, killedOld)
	if runs < 5 { // a loaded machine runs few; each one still counts
		t.Fatalf("only %d runs", runs)
	}
}
