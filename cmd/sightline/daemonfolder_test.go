//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitInit makes dir a new repository, as a user would.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		// No git here: its folder is what marks the workspace.
		if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
			t.Fatalf("git init: %v %s; %v", err, out, err)
		}
	}
}

// servedDaemon starts the workspace's daemon with a first read of a.txt,
// has it serve a second one (so it holds the document), and returns its
// pid.
func servedDaemon(t *testing.T, c *cli, sockDir string) int {
	t.Helper()
	for i := range 2 {
		if out, errOut, code := c.run("", "read", "a.txt"); code != 0 || !strings.Contains(out, "old") {
			t.Fatalf("read %d: %d %s %s", i, code, out, errOut)
		}
		if i == 0 {
			waitDaemon(t, sockDir)
		}
	}
	pids := daemonPIDs(c.dir)
	if len(pids) != 1 {
		t.Fatalf("daemons of the workspace: %v, want one", pids)
	}
	return pids[0]
}

// inNewFolder checks that the commands run in c.dir see the folder now
// there, not the one the daemon opened (moved to old, or removed when old
// is ""): a read shows the new a.txt, a created file lands in the new
// folder; and that the daemon that served the old folder is gone.
func inNewFolder(t *testing.T, c *cli, old string, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, "a.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("", "read", "a.txt")
	if code != 0 || !strings.Contains(out, "new") || strings.Contains(out, "old") {
		t.Fatalf("read in the new folder: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = c.run("made\n", "write", "b.txt", "--mode", "create")
	if code != 0 {
		t.Fatalf("write --mode create in the new folder: %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(c.dir, "b.txt")); err != nil || string(b) != "made\n" {
		t.Fatalf("the created file in the new folder: %q %v", b, err)
	}
	if old != "" {
		if _, err := os.Lstat(filepath.Join(old, "b.txt")); err == nil {
			t.Fatalf("the created file landed in the old folder %s", old)
		}
	}
	waitGone(t, pid, 5*time.Second)
	// The command that found it gone started one of the new folder.
	if out, errOut, code := c.run("", "read", "b.txt"); code != 0 || !strings.Contains(out, "made") {
		t.Fatalf("read of b.txt: %d %s %s", code, out, errOut)
	}
	if got := daemonPIDs(c.dir); len(got) != 1 || got[0] == pid {
		t.Fatalf("daemons of the new folder: %v (the old one: %d)", got, pid)
	}
}

// TestDaemonLeavesAMovedRoot: mv proj proj.bak; mkdir proj; git init proj.
// The daemon that opened proj (now proj.bak) does not serve proj: the
// calls see the new folder, and it exits.
func TestDaemonLeavesAMovedRoot(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"a.txt": "old\n"})
	pid := servedDaemon(t, c, sockDir)
	bak := c.dir + ".bak"
	if err := os.Rename(c.dir, bak); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bak) })
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitInit(t, c.dir)
	inNewFolder(t, c, bak, pid)
	if b, err := os.ReadFile(filepath.Join(bak, "a.txt")); err != nil || string(b) != "old\n" {
		t.Fatalf("the old folder's a.txt: %q %v", b, err)
	}
}

// TestDaemonLeavesAReplacedRoot: rm -rf proj, and proj made again (a fresh
// clone). The daemon that opened the removed folder does not serve the new
// one (where every file would not exist for it), and it exits.
func TestDaemonLeavesAReplacedRoot(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"a.txt": "old\n"})
	pid := servedDaemon(t, c, sockDir)
	// Held open, the removed folder keeps its inode: the new one cannot be
	// given the same number, as a quick re-creation otherwise may be.
	hold, err := os.Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	if err := os.RemoveAll(c.dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitInit(t, c.dir)
	inNewFolder(t, c, "", pid)
}

// TestDaemonConfigOfTheSameSizeAndTime: .sightline.json replaced by one of
// the same size with its time put back (cp -p, rsync -t, tar): the next
// call through the daemon applies the new policy, as a command in its own
// process does.
func TestDaemonConfigOfTheSameSizeAndTime(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{
		"aa/s.txt":        "in aa\n",
		"bb/s.txt":        "in bb\n",
		".sightline.json": `{"policy": {"deny": ["aa/**"]}}`,
	})
	cfg := filepath.Join(c.dir, ".sightline.json")
	before, err := os.Stat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pid := 0
	for i := range 2 {
		if out, errOut, code := c.run("", "read", "bb/s.txt"); code != 0 || !strings.Contains(out, "in bb") {
			t.Fatalf("read %d of bb/s.txt, denied aa/**: %d %s %s", i, code, out, errOut)
		}
		if i == 0 {
			waitDaemon(t, sockDir)
			pid = daemonPIDs(c.dir)[0]
		}
	}
	if err := os.WriteFile(cfg, []byte(`{"policy": {"deny": ["bb/**"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(cfg, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(cfg); err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || after.Mode() != before.Mode() {
		t.Fatalf("the new configuration's stat: %v %v, want the old one's", after, err)
	}
	out, errOut, code := c.run("", "read", "bb/s.txt")
	if code == 0 || strings.Contains(out, "in bb") {
		t.Fatalf("read of bb/s.txt through the daemon after deny bb/**: %d %s %s", code, out, errOut)
	}
	if out, errOut, code := c.run("", "read", "aa/s.txt"); code != 0 || !strings.Contains(out, "in aa") {
		t.Fatalf("read of aa/s.txt through the daemon after deny bb/** only: %d %s %s", code, out, errOut)
	}
	if got := daemonPIDs(c.dir); len(got) != 1 || got[0] != pid {
		t.Fatalf("the calls did not all go to the daemon %d: daemons %v", pid, got)
	}
}
