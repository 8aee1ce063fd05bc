package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
)

// The ledger records exactly the lines whose content the agent received, in
// the output mode it uses (PROTOCOL section 5). These tests run each command
// in text mode, collect the hashline-annotated lines it printed, and check
// them against what `sightline ledger --json` says the session has read.

var annotatedLine = regexp.MustCompile(`^(\d+):([0-9A-Za-z]{4})\|`)

// printed returns the lines shown hashline-annotated in a command's output.
func printed(outputs ...string) ledger.RangeSet {
	var s ledger.RangeSet
	for _, out := range outputs {
		for _, l := range strings.Split(out, "\n") {
			if m := annotatedLine.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				s.Add(ledger.Range{Start: n, End: n})
			}
		}
	}
	return s
}

// known returns the lines the session's ledger holds as read or authored.
func (c *cli) known(session, path string) ledger.RangeSet {
	c.t.Helper()
	out, errOut, code := c.run("", "ledger", path, "--json", "--session", session)
	var res struct {
		Documents []struct {
			Read     []ledger.Range `json:"read"`
			Authored []ledger.Range `json:"authored"`
		} `json:"documents"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.Documents) != 1 {
		c.t.Fatalf("ledger %s: %d %v %s %s", path, code, err, out, errOut)
	}
	s := ledger.NewRangeSet(res.Documents[0].Read...)
	s.AddAll(res.Documents[0].Authored)
	return s
}

// requireShown fails unless every line the ledger holds was printed, and
// every annotated line printed is recorded.
func requireShown(t *testing.T, what string, recorded, shown ledger.RangeSet) {
	t.Helper()
	for _, r := range recorded.Ranges() {
		if !shown.Covers(r) {
			t.Errorf("%s: the ledger records %v as read, but the output printed only %v", what, recorded.Ranges(), shown.Ranges())
			return
		}
	}
	for _, r := range shown.Ranges() {
		if !recorded.Covers(r) {
			t.Errorf("%s: printed %v annotated, but the ledger records only %v", what, shown.Ranges(), recorded.Ranges())
			return
		}
	}
}

func numbered(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

func refOf(t *testing.T, dir, path string, line int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, path))
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Split(string(b), "\n")[line-1]
	return fmt.Sprintf("%d:%s", line, hashline.Hash(l))
}

func TestCLITextShowsWhatItRecords(t *testing.T) {
	src := "package a\n\n" + numbered(40, "func F%d() {}\n")
	c := newCLI(t, map[string]string{"a.go": src, "notes.txt": numbered(30, "note %d\n")})

	t.Run("read", func(t *testing.T) {
		out, errOut, code := c.run("", "read", "a.go:3-9", "--session", "read")
		if code != 0 {
			t.Fatalf("read: %d %s", code, errOut)
		}
		requireShown(t, "read", c.known("read", "a.go"), printed(out, errOut))
	})

	t.Run("read truncated", func(t *testing.T) {
		out, errOut, code := c.run("", "read", "a.go", "--budget", "250", "--session", "budget")
		if code != 0 || !strings.Contains(out, "truncated") {
			t.Fatalf("read: %d %s %s", code, out, errOut)
		}
		requireShown(t, "read --budget", c.known("budget", "a.go"), printed(out, errOut))
	})

	t.Run("summary", func(t *testing.T) {
		out, errOut, code := c.run("", "summary", "a.go", "--max-chars", "120", "--session", "summary")
		if code != 0 {
			t.Fatalf("summary: %d %s", code, errOut)
		}
		shown := printed(out, errOut)
		if shown.IsEmpty() {
			t.Errorf("summary printed no excerpt lines:\n%s", out)
		}
		requireShown(t, "summary", c.known("summary", "a.go"), shown)
	})

	t.Run("edit", func(t *testing.T) {
		out1, _, code := c.run("", "read", "a.go:20-20", "--session", "edit")
		if code != 0 {
			t.Fatal("read")
		}
		edit := fmt.Sprintf(`[{"type":"replace_line","ref":%q,"new_content":"func G() {}"}]`, refOf(t, c.dir, "a.go", 20))
		out2, errOut, code := c.run(edit, "edit", "a.go", "--edits", "-", "--session", "edit")
		if code != 0 {
			t.Fatalf("edit: %d %s %s", code, out2, errOut)
		}
		requireShown(t, "edit", c.known("edit", "a.go"), printed(out1, out2, errOut))
	})

	t.Run("stale ref", func(t *testing.T) {
		out, errOut, code := c.run(`[{"type":"delete_line","ref":"12:zzzz"}]`, "edit", "a.go", "--edits", "-", "--session", "stale")
		if code != 1 || !strings.Contains(errOut, "stale_ref") {
			t.Fatalf("stale ref: %d %s %s", code, out, errOut)
		}
		requireShown(t, "stale_ref", c.known("stale", "a.go"), printed(out, errOut))
	})

	t.Run("write nearest", func(t *testing.T) {
		out, errOut, code := c.run("x", "write", "notes.txt", "--mode", "edit", "--old-text", "note 17 (changed)", "--session", "nearest")
		if code != 1 || !strings.Contains(errOut, "no_match") {
			t.Fatalf("write: %d %s %s", code, out, errOut)
		}
		requireShown(t, "write nearest", c.known("nearest", "notes.txt"), printed(out, errOut))
	})

	t.Run("guard refusal", func(t *testing.T) {
		out, errOut, code := c.run("y\n", "write", "notes.txt", "--mode", "edit", "--old-text", "note 5\n", "--session", "guard")
		if code != 1 || !strings.Contains(errOut, "unread_range") {
			t.Fatalf("write: %d %s %s", code, out, errOut)
		}
		requireShown(t, "guard refusal", c.known("guard", "notes.txt"), printed(out, errOut))
	})

	t.Run("apply", func(t *testing.T) {
		out, errOut, code := c.run("notes.txt\n<<<< EDIT\nnote 9\n==== REPLACE\nnine\n>>>> EDIT END\n", "apply", "--session", "apply")
		if code != 1 || !strings.Contains(out, "[failed]") {
			t.Fatalf("apply: %d %s %s", code, out, errOut)
		}
		requireShown(t, "apply", c.known("apply", "notes.txt"), printed(out, errOut))
	})
}

// TestCLIAutoExpandNamesWhatItReturned: with a small read budget, auto-expand
// returns part of the missing lines; the message names exactly those, and
// says the rest still must be read.
func TestCLIAutoExpandNamesWhatItReturned(t *testing.T) {
	c := newCLI(t, map[string]string{
		"big.txt":         numbered(400, "line number %d of a file too big for one read budget\n"),
		".sightline.json": `{"readBudget": 600}`,
	})
	out1, _, code := c.run("", "read", "big.txt:1-2")
	if code != 0 {
		t.Fatal("read")
	}
	edit := fmt.Sprintf(`[{"type":"delete_range","start_ref":%q,"end_ref":%q}]`, refOf(t, c.dir, "big.txt", 1), refOf(t, c.dir, "big.txt", 400))
	out2, errOut, code := c.run(edit, "edit", "big.txt", "--edits", "-")
	if code != 1 || !strings.Contains(errOut, "unread_range") {
		t.Fatalf("edit: %d %s %s", code, out2, errOut)
	}
	expanded := printed(errOut)
	got := expanded.Ranges()
	if len(got) != 1 || got[0].Start != 3 || got[0].End >= 400 {
		t.Fatalf("expanded %v; want a part of 3-400:\n%s", got, errOut)
	}
	msg := strings.SplitN(errOut, "\n", 2)[0]
	if want := fmt.Sprintf("Lines 3-%d", got[0].End); !strings.Contains(msg, want+" ") {
		t.Errorf("message does not name the lines returned (%s): %s", want, msg)
	}
	if want := fmt.Sprintf("Lines %d-400", got[0].End+1); !strings.Contains(msg, want) {
		t.Errorf("message does not name the lines still unread (%s): %s", want, msg)
	}
	if strings.Contains(msg, "Those lines") {
		t.Errorf("message claims every missing line was returned: %s", msg)
	}
	requireShown(t, "auto-expand", c.known("default", "big.txt"), printed(out1, out2, errOut))
}
