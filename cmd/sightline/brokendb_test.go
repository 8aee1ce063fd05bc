package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/sightline-lsp/sightline/hashline"
)

// withEnv returns the same workspace with more environment variables.
func (c *cli) withEnv(kv ...string) *cli {
	d := *c
	d.env = append(append([]string(nil), c.env...), kv...)
	return &d
}

type jsonAnswer struct {
	OK       bool     `json:"ok"`
	Error    string   `json:"error"`
	Message  string   `json:"message"`
	Content  string   `json:"content"`
	Warnings []string `json:"warnings"`
	Expanded string   `json:"expanded"`
}

func (c *cli) answer(stdin string, args ...string) (jsonAnswer, time.Duration) {
	c.t.Helper()
	start := time.Now()
	out, errOut, _ := c.run(stdin, append(args, "--json")...)
	took := time.Since(start)
	var a jsonAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		c.t.Fatalf("%v: not JSON: %s %s", args, out, errOut)
	}
	return a, took
}

// A state database that cannot be used must be said in every answer, and a
// guard refusal must not promise that lines now count as read when nothing
// outlives this command.
func TestCLIBrokenStateDatabase(t *testing.T) {
	t.Parallel() // mostly waiting on processes and bounds: beside the other long ones
	text := "one\ntwo\nthree\n"
	edit := `[{"type":"replace_line","ref":"2:` + hashOfLine("two") + `","new_content":"dos"}]`
	check := func(t *testing.T, c *cli, want string) {
		t.Helper()
		r, took := c.answer("", "read", "a.txt:1-1")
		if !r.OK || !strings.Contains(strings.Join(r.Warnings, " "), want) {
			t.Fatalf("read: no warning naming %q: %+v", want, r)
		}
		if took > 4*time.Second {
			t.Errorf("read took %v", took)
		}
		e, _ := c.answer(edit, "edit", "a.txt", "--edits", "-")
		if e.OK || !strings.Contains(strings.Join(e.Warnings, " "), want) {
			t.Fatalf("edit: %+v", e)
		}
		if strings.Contains(e.Message, "now count") {
			t.Fatalf("a refusal promises what cannot be recorded: %s", e.Message)
		}
		// Human output says it too, on stderr.
		_, errOut, _ := c.run("", "read", "a.txt:1-1")
		if !strings.Contains(errOut, want) {
			t.Fatalf("human read: stderr %q lacks %q", errOut, want)
		}
		// A refused edit that says "see warnings" prints them.
		_, errOut, code := c.run(edit, "edit", "a.txt", "--edits", "-")
		if code != 1 || !strings.Contains(errOut, "warning: ") || !strings.Contains(errOut, want) {
			t.Fatalf("human edit refusal: %d, stderr %q lacks the warning naming %q", code, errOut, want)
		}
	}

	t.Run("state folder unwritable", func(t *testing.T) {
		c := newCLI(t, map[string]string{"a.txt": text})
		file := filepath.Join(t.TempDir(), "state-is-a-file")
		os.WriteFile(file, []byte("x"), 0o644)
		check(t, c.withEnv("XDG_STATE_HOME="+file), file)
		// MCP prints them in a refusal too.
		s := mcpSession(t, c.withEnv("XDG_STATE_HOME="+file))
		text, isErr := callText(t, s, "sightline_edit", map[string]any{"path": "a.txt", "edits": []map[string]any{
			{"type": "replace_line", "ref": "2:" + hashOfLine("two"), "new_content": "dos"}}})
		if !isErr || !strings.Contains(text, "warning: ") || !strings.Contains(text, file) {
			t.Fatalf("MCP edit refusal must print its warnings: %s", text)
		}
	})

	t.Run("locked by another process", func(t *testing.T) {
		c := newCLI(t, map[string]string{"a.txt": text})
		dir := t.TempDir()
		c = c.withEnv("SIGHTLINE_STATE_DIR=" + dir)
		c.run("", "read", "a.txt:1-1") // creates the database
		db, err := sql.Open("sqlite", filepath.Join(dir, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(context.Background(), "ROLLBACK")
		check(t, c, "locked")
		check(t, c, dir)
	})

	t.Run("corrupt", func(t *testing.T) {
		c := newCLI(t, map[string]string{"a.txt": text})
		dir := t.TempDir()
		c = c.withEnv("SIGHTLINE_STATE_DIR=" + dir)
		os.WriteFile(filepath.Join(dir, "state.db"), []byte(strings.Repeat("this is not a database\n", 500)), 0o600)
		r, _ := c.answer("", "read", "a.txt")
		if !r.OK || !strings.Contains(strings.Join(r.Warnings, " "), "corrupt") {
			t.Fatalf("read of a corrupt database: %+v", r)
		}
		moved, _ := filepath.Glob(filepath.Join(dir, "state.db.corrupt-*"))
		if len(moved) == 0 {
			t.Fatal("the corrupt database was not moved aside")
		}
		// The new database works: the read above counts in the next call.
		if e, _ := c.answer(edit, "edit", "a.txt", "--edits", "-"); !e.OK {
			t.Fatalf("edit after recreating the database: %+v", e)
		}
	})
}

func hashOfLine(s string) string { return hashline.Hash(s) }
