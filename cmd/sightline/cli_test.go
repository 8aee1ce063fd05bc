package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/result"
)

// cli runs the built binary in a workspace and returns stdout, stderr and
// the exit code.
type cli struct {
	t        *testing.T
	bin, dir string
	cwd      string // where commands run, relative to dir ("" for dir)
	env      []string
}

// in returns the same workspace with commands run from its subfolder sub.
func (c *cli) in(sub string) *cli {
	d := *c
	d.cwd = sub
	return &d
}

func newCLI(t *testing.T, files map[string]string) *cli {
	bin := buildBinary(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	return &cli{t: t, bin: bin, dir: dir, env: append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())}
}

func (c *cli) run(stdin string, args ...string) (string, string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = filepath.Join(c.dir, c.cwd)
	cmd.Env = c.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestCLIReadEditApplyWrite(t *testing.T) {
	c := newCLI(t, map[string]string{"src/a.go": "package a\n\nfunc A() {}\n", "notes.txt": "x\r\ny\r\n"})

	out, _, code := c.run("", "read", "src/a.go:1-2", "--json")
	var rr struct {
		OK       bool   `json:"ok"`
		Content  string `json:"content"`
		FileHash string `json:"fileHash"`
	}
	json.Unmarshal([]byte(out), &rr)
	if code != 0 || !rr.OK || !strings.HasPrefix(rr.Content, "1:") {
		t.Fatalf("read: %d %s", code, out)
	}
	ref1 := strings.SplitN(rr.Content, "|", 2)[0]

	// An edit of a line never read is refused (exit 1) with the range.
	_, errOut, code := c.run(`[{"type":"delete_line","ref":"3:zzzz"}]`, "edit", "src/a.go", "--edits", "-")
	if code != 1 || !strings.Contains(errOut, "stale_ref") {
		t.Fatalf("stale edit: %d %s", code, errOut)
	}
	out, _, code = c.run(`[{"type":"replace_line","ref":"`+ref1+`","new_content":"package b"}]`, "edit", "src/a.go", "--edits", "-", "--file-hash", rr.FileHash)
	if code != 0 || !strings.Contains(out, "+package b") {
		t.Fatalf("edit: %d %s", code, out)
	}

	// Edit blocks from standard input; exit 1 when one fails, and then
	// none is written.
	good := "src/a.go\n<<<< EDIT\npackage b\n==== REPLACE\npackage c\n>>>> EDIT END\n"
	out, _, code = c.run(good+"src/a.go\n<<<< EDIT\nnope\n==== REPLACE\nyes\n>>>> EDIT END\n", "apply")
	if code != 1 || !strings.Contains(out, "[skipped] src/a.go") || !strings.Contains(out, "[failed] src/a.go") {
		t.Fatalf("apply: %d %s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "src/a.go")); !strings.HasPrefix(string(b), "package b\n") {
		t.Fatalf("after a refused apply: %q", b)
	}
	out, _, code = c.run(good, "apply")
	if code != 0 || !strings.Contains(out, "[applied] src/a.go") {
		t.Fatalf("apply: %d %s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "src/a.go")); !strings.HasPrefix(string(b), "package c\n") {
		t.Fatalf("after apply: %q", b)
	}

	// Write modes: append keeps CRLF; create refuses an existing file.
	c.run("", "read", "notes.txt")
	if out, _, code = c.run("z\n", "write", "notes.txt", "--mode", "append"); code != 0 {
		t.Fatalf("append: %d %s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "notes.txt")); string(b) != "x\r\ny\r\nz\r\n" {
		t.Fatalf("append: %q", b)
	}
	if _, errOut, code = c.run("q", "write", "notes.txt", "--mode", "create"); code != 1 || !strings.Contains(errOut, "exists") {
		t.Fatalf("create over a file: %d %s", code, errOut)
	}
	if _, _, code = c.run("", "write", "notes.txt"); code != 2 {
		t.Fatalf("usage error exit code %d", code)
	}
	out, _, code = c.run("", "summary", "src/a.go")
	if code != 0 || !strings.Contains(out, "func") || !strings.Contains(out, "A()") {
		t.Fatalf("summary: %d %s", code, out)
	}
	out, _, code = c.run("", "ledger")
	if code != 0 || !strings.Contains(out, "src/a.go") || !strings.Contains(out, "notes.txt") {
		t.Fatalf("ledger: %d %s", code, out)
	}
	if _, errOut, code := c.run("", "read", "../outside.txt"); code != 1 || !strings.Contains(errOut, "denied") {
		t.Fatalf("read outside the workspace: %d %s", code, errOut)
	}
	out, _, code = c.run("", "stats", "--json")
	var st struct {
		Methods map[string]struct{ Calls int } `json:"methods"`
	}
	json.Unmarshal([]byte(out), &st)
	if code != 0 || st.Methods["sightline/edit"].Calls != 2 || st.Methods["sightline/write"].Calls != 2 {
		t.Fatalf("stats: %d %s", code, out)
	}
}

// TestCLIApplyStage: --stage puts the written files in git's index.
func TestCLIApplyStage(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	c := newCLI(t, nil)
	os.RemoveAll(filepath.Join(c.dir, ".git"))
	if out, err := exec.Command("git", "-C", c.dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	out, _, code := c.run("lib/new.txt\n<<<< EDIT\n==== REPLACE\nhello\n>>>> EDIT END\n", "apply", "--stage")
	if code != 0 {
		t.Fatalf("apply --stage: %d %s", code, out)
	}
	staged, err := exec.Command("git", "-C", c.dir, "diff", "--cached", "--name-only").Output()
	if err != nil || strings.TrimSpace(string(staged)) != "lib/new.txt" {
		t.Fatalf("staged: %q %v", staged, err)
	}
}

// TestCLIApplyStreams: a block is checked as soon as its end marker
// arrives, while the model output is still streaming in; the blocks are
// written together when it ends.
func TestCLIApplyStreams(t *testing.T) {
	c := newCLI(t, map[string]string{"s.txt": "one\n"})
	c.run("", "read", "s.txt")
	cmd := exec.Command(c.bin, "apply")
	cmd.Dir, cmd.Env = c.dir, c.env
	in, _ := cmd.StdinPipe()
	out := &lockedBuffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.Write([]byte("Working on it.\n\ns.txt\n<<<< EDIT\none\n==== REPLACE\nONE\n>>>> EDIT END\n\nNow thinking about the next change...\n"))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "[validated] s.txt") {
		if time.Now().After(deadline) {
			t.Fatal("the first block was not checked while the output was still open")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "s.txt")); string(b) != "one\n" {
		t.Fatalf("written before the output ended: %q", b)
	}
	in.Write([]byte("s.txt\n<<<< EDIT\nONE\n==== REPLACE\nONE\nTWO\n>>>> EDIT END\n"))
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "s.txt")); string(b) != "ONE\nTWO\n" {
		t.Fatalf("after the stream: %q", b)
	}
}

// lockedBuffer is a buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCLIPathsFromSubfolder: a PATH is relative to the working directory like
// any command line tool's, must stay inside the workspace, and answers name
// it relative to the workspace root.
func TestCLIPathsFromSubfolder(t *testing.T) {
	c := newCLI(t, map[string]string{
		"a.txt":     "root a\n",
		"sub/a.txt": "sub a\n",
		"sub/b.go":  "package b\n\nfunc B() {}\n",
	})
	os.WriteFile(filepath.Join(filepath.Dir(c.dir), "outside"), []byte("secret\n"), 0o644)
	sub := c.in("sub")

	var rr struct {
		OK      bool   `json:"ok"`
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	out, _, code := sub.run("", "read", "a.txt", "--json")
	json.Unmarshal([]byte(out), &rr)
	if code != 0 || !strings.Contains(rr.Content, "|sub a") || rr.Path != "sub/a.txt" {
		t.Fatalf("read a.txt from sub: %d %s", code, out)
	}
	ref := strings.SplitN(rr.Content, "|", 2)[0]
	out, _, code = sub.run("", "read", "../a.txt:1-1", "--json")
	rr.Path, rr.Content = "", ""
	json.Unmarshal([]byte(out), &rr)
	if code != 0 || !strings.Contains(rr.Content, "|root a") || rr.Path != "a.txt" {
		t.Fatalf("read ../a.txt from sub: %d %s", code, out)
	}
	if _, errOut, code := sub.run("", "read", "../../outside"); code != 1 || !strings.Contains(errOut, "denied") {
		t.Fatalf("read ../../outside from sub: %d %s", code, errOut)
	}

	out, errOut, code := sub.run(`[{"type":"replace_line","ref":"`+ref+`","new_content":"sub A"}]`, "edit", "a.txt", "--edits", "-")
	if code != 0 || !strings.Contains(out, "sub/a.txt") {
		t.Fatalf("edit a.txt from sub: %d %s %s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "sub/a.txt")); string(b) != "sub A\n" {
		t.Fatalf("sub/a.txt after the edit: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "a.txt")); string(b) != "root a\n" {
		t.Fatalf("a.txt changed by an edit meant for sub/a.txt: %q", b)
	}
	// Edit blocks name files as the repository does: from the workspace root.
	if out, _, code := sub.run("sub/a.txt\n<<<< EDIT\nsub A\n==== REPLACE\nsub AA\n>>>> EDIT END\n", "apply"); code != 0 || !strings.Contains(out, "[applied] sub/a.txt") {
		t.Fatalf("apply from sub: %d %s", code, out)
	}
	if _, errOut, code := sub.run(`[]`, "edit", "../../outside", "--edits", "-"); code != 1 || !strings.Contains(errOut, "denied") {
		t.Fatalf("edit ../../outside from sub: %d %s", code, errOut)
	}

	if out, errOut, code := sub.run("new\n", "write", "new.txt", "--mode", "create"); code != 0 || !strings.Contains(out, "sub/new.txt") {
		t.Fatalf("write new.txt from sub: %d %s %s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(c.dir, "sub/new.txt")); err != nil || string(b) != "new\n" {
		t.Fatalf("sub/new.txt: %q %v", b, err)
	}
	if _, errOut, code := sub.run("x\n", "write", "../../outside", "--mode", "append"); code != 1 || !strings.Contains(errOut, "denied") {
		t.Fatalf("write ../../outside from sub: %d %s", code, errOut)
	}

	out, _, code = sub.run("", "ledger", "../a.txt")
	if code != 0 || !strings.HasPrefix(out, "a.txt  ") || !strings.Contains(out, "fully_read") {
		t.Fatalf("ledger ../a.txt from sub: %d %s", code, out)
	}
	out, _, code = sub.run("", "ledger", "a.txt")
	if code != 0 || !strings.HasPrefix(out, "sub/a.txt  ") {
		t.Fatalf("ledger a.txt from sub: %d %s", code, out)
	}
	if _, errOut, code := sub.run("", "ledger", "../../outside"); code != 1 || !strings.Contains(errOut, "denied") {
		t.Fatalf("ledger ../../outside from sub: %d %s", code, errOut)
	}

	out, _, code = sub.run("", "summary", "b.go")
	if code != 0 || !strings.HasPrefix(out, "sub/b.go") || !strings.Contains(out, "B()") {
		t.Fatalf("summary b.go from sub: %d %s", code, out)
	}
	if _, errOut, code := sub.run("", "summary", "../../outside"); code != 1 || !strings.Contains(errOut, "denied") {
		t.Fatalf("summary ../../outside from sub: %d %s", code, errOut)
	}
}

// TestCLIChangeBetweenCalls: a file changed by another program between two
// CLI calls keeps the reads of its unchanged lines; only the changed lines go
// stale, inserted ones are unread (as the server does for didChange).
func TestCLIChangeBetweenCalls(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	c := newCLI(t, map[string]string{"f.txt": text.String()})
	out, _, code := c.run("", "read", "f.txt", "--json")
	var rr struct {
		Content string `json:"content"`
	}
	if json.Unmarshal([]byte(out), &rr); code != 0 || !strings.HasPrefix(rr.Content, "1:") {
		t.Fatalf("read: %d %s", code, out)
	}
	refs := strings.Split(strings.TrimSuffix(rr.Content, "\n"), "\n")

	// Another program inserts a line at 10 and rewrites line 20 (now 21).
	var changed strings.Builder
	for i := 1; i <= 40; i++ {
		if i == 10 {
			changed.WriteString("inserted\n")
		}
		if i == 20 {
			changed.WriteString("changed 20\n")
			continue
		}
		fmt.Fprintf(&changed, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "f.txt"), []byte(changed.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	out, _, code = c.run("", "ledger", "f.txt")
	if want := "f.txt  stale  41 lines  read 1-9,11-20,22-41  stale 21  unread 10\n"; code != 0 || out != want {
		t.Fatalf("ledger after the change: %d\n got %q\nwant %q", code, out, want)
	}
	ref5 := strings.SplitN(refs[4], "|", 2)[0]
	out, errOut, code := c.run(`[{"type":"replace_line","ref":"`+ref5+`","new_content":"LINE 5"}]`, "edit", "f.txt", "--edits", "-")
	if code != 0 || !strings.Contains(out, "+LINE 5") {
		t.Fatalf("edit of unchanged line 5: %d %s %s", code, out, errOut)
	}
	// The changed line, named by its new ref, is stale: read it again first.
	ref21 := "21:" + hashline.Hash("changed 20")
	_, errOut, code = c.run(`[{"type":"replace_line","ref":"`+ref21+`","new_content":"x"}]`, "edit", "f.txt", "--edits", "-")
	if code != 1 || !strings.Contains(errOut, "stale_range") {
		t.Fatalf("edit of the changed line 21: %d %s", code, errOut)
	}
}

// TestCLIReadJSONStreamed: --json of a read (its content streamed by
// result.Write) is the encoder's encoding of the answer, compact and with
// --pretty, and its content is what the text output prints.
func TestCLIReadJSONStreamed(t *testing.T) {
	text := "\ufeffpackage a\r\n\n\tx := \"a\\tb\" // </script> & é 世界 \u2028\x01\x1b\nlast"
	c := newCLI(t, map[string]string{"f.go": text})
	plain, _, code := c.run("", "read", "f.go")
	if code != 0 {
		t.Fatalf("read: %d", code)
	}
	for _, pretty := range []bool{false, true} {
		args := []string{"read", "f.go", "--json"}
		if pretty {
			args = append(args, "--pretty")
		}
		out, errOut, code := c.run("", args...)
		var res engine.ReadResult
		if err := jsonv2.Unmarshal([]byte(out), &res); err != nil || code != 0 {
			t.Fatalf("%v: %d %v %s%s", args, code, err, out, errOut)
		}
		type plainRead engine.ReadResult // not a result.LargeText: the encoder's output
		want, err := result.Marshal(plainRead(res))
		if pretty {
			want, err = indented(plainRead(res))
		}
		if err != nil || out != string(want)+"\n" {
			t.Fatalf("%v:\n%s\nencoder:\n%s", args, out, want)
		}
		if res.Content != plain || res.TotalLines != 4 {
			t.Fatalf("%v: content %q, text output %q", args, res.Content, plain)
		}
	}
}

// indented is the encoder's indented output of v (result.Write's, but for
// the newline).
func indented(v any) ([]byte, error) {
	var b bytes.Buffer
	err := result.Write(&b, v, true)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}
