//go:build unix

package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const nobody = 65534

// openDir makes a folder every user can enter, removed after the test
// (t.TempDir's folders are private to the test's user).
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sightline-perm-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// asUser runs the binary as uid:gid (needs root) in dir.
func asUser(t *testing.T, bin, dir string, uid, gid uint32, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	state := filepath.Join(filepath.Dir(dir), "state")
	os.MkdirAll(state, 0o777)
	os.Chmod(state, 0o777)
	// The users share one state folder, and so its socket folder, which
	// belongs to whoever made it first: no editor runs here, which
	// SIGHTLINE_NO_BRIDGE=1 says (else the other users' writes are refused,
	// as no server of theirs could be reached).
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "HOME="+state, "SIGHTLINE_NO_BRIDGE=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

func needRoot(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root to run a helper process as another user (uid 65534) and to own files as another user")
	}
}

// TestPermissionsKept: a file the caller may not write is refused; a write
// keeps the file's owner, group and mode; a file with several hard links is
// refused, never split.
func TestPermissionsKept(t *testing.T) {
	needRoot(t)
	base := openDir(t)
	bin := filepath.Join(base, "sightline")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, ".git"), 0o777)
	os.Chmod(ws, 0o777) // world-writable: a rename over any file would succeed
	os.WriteFile(filepath.Join(ws, ".sightline.json"), []byte(`{"guard":"off"}`), 0o644)

	// A root-owned 0444 file, written by another user: refused, untouched.
	ro := filepath.Join(ws, "ro.txt")
	os.WriteFile(ro, []byte("root's\n"), 0o444)
	os.Chmod(ro, 0o444)
	for _, mode := range []string{"append", "overwrite"} {
		out, errOut, code := asUser(t, bin, ws, nobody, nobody, "mine\n", "write", "ro.txt", "--mode", mode, "--json")
		if code != 1 || kindOf(out) != "read_only" {
			t.Errorf("nobody %s of a root 0444 file: exit %d %s %s", mode, code, out, errOut)
		}
	}
	if fi, _ := os.Stat(ro); statOwner(fi) != [2]uint32{0, 0} {
		t.Errorf("ro.txt owner changed: %v", statOwner(fi))
	}
	if b, _ := os.ReadFile(ro); string(b) != "root's\n" {
		t.Errorf("ro.txt changed: %q", b)
	}
	// Not even root writes a file with no write bit at all.
	out, _, code := asUser(t, bin, ws, 0, 0, "mine\n", "write", "ro.txt", "--mode", "append", "--json")
	if code != 1 || kindOf(out) != "read_only" {
		t.Errorf("root append to a 0444 file: exit %d %s", code, out)
	}

	// Root edits nobody's 0640 file: owner, group and mode stay.
	theirs := filepath.Join(ws, "theirs.txt")
	os.WriteFile(theirs, []byte("a\n"), 0o640)
	os.Chmod(theirs, 0o640)
	os.Chown(theirs, nobody, nobody)
	if out, errOut, code := asUser(t, bin, ws, 0, 0, "b\n", "write", "theirs.txt", "--mode", "append", "--json"); code != 0 {
		t.Fatalf("root append: exit %d %s %s", code, out, errOut)
	}
	fi, _ := os.Stat(theirs)
	if statOwner(fi) != [2]uint32{nobody, nobody} || fi.Mode().Perm() != 0o640 {
		t.Errorf("after root's write: owner %v mode %v, want 65534:65534 0640", statOwner(fi), fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(theirs); string(b) != "a\nb\n" {
		t.Errorf("theirs.txt: %q", b)
	}

	// A user edits their own file: it stays theirs, mode kept (exec bit).
	mine := filepath.Join(ws, "mine.sh")
	os.WriteFile(mine, []byte("#!/bin/sh\n"), 0o750)
	os.Chmod(mine, 0o750)
	os.Chown(mine, nobody, nobody)
	if out, errOut, code := asUser(t, bin, ws, nobody, nobody, "echo\n", "write", "mine.sh", "--mode", "append", "--json"); code != 0 {
		t.Fatalf("nobody append to own file: exit %d %s %s", code, out, errOut)
	}
	fi, _ = os.Stat(mine)
	if statOwner(fi) != [2]uint32{nobody, nobody} || fi.Mode().Perm() != 0o750 {
		t.Errorf("own file: owner %v mode %v", statOwner(fi), fi.Mode().Perm())
	}

	// A file writable by the caller but owned by another user: its owner
	// could not be kept by a rename, so it is refused, not given away.
	shared := filepath.Join(ws, "shared.txt")
	os.WriteFile(shared, []byte("s\n"), 0o666)
	os.Chmod(shared, 0o666)
	out, _, code = asUser(t, bin, ws, nobody, nobody, "x\n", "write", "shared.txt", "--mode", "append", "--json")
	if code != 1 || kindOf(out) != "read_only" || !strings.Contains(out, "owner") {
		t.Errorf("nobody append to root's 0666 file: exit %d %s", code, out)
	}
	if fi, _ := os.Stat(shared); statOwner(fi) != [2]uint32{0, 0} {
		t.Errorf("shared.txt owner changed: %v", statOwner(fi))
	}

	// Hard links: refused, both names untouched and still one file.
	linked := filepath.Join(ws, "linked.txt")
	os.WriteFile(linked, []byte("l\n"), 0o644)
	os.Link(linked, filepath.Join(ws, "other-name.txt"))
	out, _, code = asUser(t, bin, ws, 0, 0, "x\n", "write", "linked.txt", "--mode", "append", "--json")
	if code != 1 || kindOf(out) != "denied" || !strings.Contains(out, "hard link") {
		t.Errorf("append to a hard-linked file: exit %d %s", code, out)
	}
	a, _ := os.Stat(linked)
	b, _ := os.Stat(filepath.Join(ws, "other-name.txt"))
	if !os.SameFile(a, b) {
		t.Error("the hard link was split")
	}
}

func statOwner(fi os.FileInfo) [2]uint32 {
	if fi == nil {
		return [2]uint32{1 << 31, 1 << 31}
	}
	st := fi.Sys().(*syscall.Stat_t)
	return [2]uint32{st.Uid, st.Gid}
}

// TestKillDuringWrite: a CLI process overwriting a 5 MB file is killed
// (SIGKILL) at random moments. The file is always the old or the new
// content, and no temp file survives the next write in the folder.
func TestKillDuringWrite(t *testing.T) {
	t.Parallel() // mostly waiting on processes and bounds: beside the other long ones
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	c := newCLI(t, map[string]string{".sightline.json": `{"guard":"off"}`})
	mk := func(ch byte) string {
		line := strings.Repeat(string(ch), 99) + "\n"
		return strings.Repeat(line, 5<<20/len(line))
	}
	contents := [2]string{mk('a'), mk('b')}
	path := filepath.Join(c.dir, "big.txt")
	os.WriteFile(path, []byte(contents[0]), 0o644)

	write := func(content string) *exec.Cmd {
		cmd := exec.Command(c.bin, "write", "big.txt", "--mode", "overwrite")
		cmd.Dir, cmd.Env = c.dir, c.env
		cmd.Stdin = strings.NewReader(content)
		return cmd
	}
	// How long one write takes (the fastest of three), to kill inside it.
	dur := time.Hour
	cur := 0
	for range 3 {
		t0 := time.Now()
		if out, err := write(contents[1-cur]).CombinedOutput(); err != nil {
			t.Fatalf("write: %v %s", err, out)
		}
		dur, cur = min(dur, time.Since(t0)), 1-cur
	}
	// About 15 s alone. Past 40 s the test stops once it has the kills it
	// needs to mean something; a loaded machine goes on for them, up to a
	// bound of its own.
	began := time.Now()
	enough, bound := began.Add(40*time.Second), began.Add(150*time.Second)
	kills, completed, leftovers := 0, 0, 0
	for i := 0; kills < 100 || i < 100; i++ {
		if now := time.Now(); now.After(bound) || now.After(enough) && kills >= 20 {
			break
		}
		next := 1 - cur
		cmd := write(contents[next])
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Half the kills anywhere in the write, half in its last part,
		// where the temp file is written and renamed.
		at := rand.Int64N(int64(dur) + 1)
		if i%2 == 1 {
			at = int64(dur)*6/10 + rand.Int64N(int64(dur)/2+1)
		}
		time.Sleep(time.Duration(at))
		cmd.Process.Kill()
		err := cmd.Wait()
		// The machine's speed varies (other tests run beside this one):
		// follow it, so that most kills land inside a write.
		if err == nil {
			completed++
			dur = dur * 85 / 100
		} else {
			kills++
			dur = dur * 102 / 100
		}
		b, _ := os.ReadFile(path)
		switch string(b) {
		case contents[cur]:
		case contents[next]:
			cur = next
		default:
			t.Fatalf("after kill %d the file is neither the old nor the new content (%d bytes)", i, len(b))
		}
		if temps(t, c.dir) > 0 {
			leftovers++
			// The next write in the folder removes what a killed writer left.
			if out, err := write(contents[1-cur]).CombinedOutput(); err != nil {
				t.Fatalf("write after kill: %v %s", err, out)
			}
			cur = 1 - cur
			if n := temps(t, c.dir); n > 0 {
				t.Fatalf("%d temp files survived the next write", n)
			}
		}
	}
	t.Logf("one write takes about %v; %d kills, %d writes completed, %d kills left a temp file (all removed by the next write), in %v", dur.Round(time.Millisecond), kills, completed, leftovers, time.Since(began).Round(time.Millisecond))
	// A loaded machine gets fewer kills in the time allowed; each one still
	// checks the file, so only too few to mean anything fail the test.
	if kills < 20 {
		t.Errorf("only %d kills in the time allowed", kills)
	}
}

// temps counts sightline's temp files (any naming it ever used) in dir.
func temps(t *testing.T, dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if strings.Contains(e.Name(), "sightline-") {
			n++
		}
	}
	return n
}
