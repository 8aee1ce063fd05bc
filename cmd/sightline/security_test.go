package main

import (
	"encoding/json"
	"fmt"
	"github.com/sightline-lsp/sightline/hashline"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// withUserConfig gives the CLI a user config folder holding cfg.
func (c *cli) withUserConfig(t *testing.T, cfg string) *cli {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sightline"), 0o700)
	if cfg != "" {
		os.WriteFile(filepath.Join(dir, "sightline", "config.json"), []byte(cfg), 0o600)
	}
	c.env = append(c.env, "XDG_CONFIG_HOME="+dir)
	return c
}

func auditRows(t *testing.T, c *cli, args ...string) []map[string]any {
	t.Helper()
	out, errs, code := c.run("", append([]string{"audit", "--json", "--limit", "0"}, args...)...)
	if code != 0 {
		t.Fatalf("audit: %d %s", code, errs)
	}
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		rows = append(rows, m)
	}
	return rows
}

func TestCLIPolicyAndApprovals(t *testing.T) {
	c := newCLI(t, map[string]string{
		"main.go":         "package main\n",
		".env":            "API_KEY=abc123\nexport DB=postgres://u:pw123456@h/db\n",
		"secret/plan.txt": "plan\n",
		"keys/deploy.pem": "x\n",
		// The repository tries to loosen the user's policy.
		".sightline.json": `{"policy":{"allow":["**"],"deny":["secret/**"],"sensitive":[]}}`,
	}).withUserConfig(t, `{"policy":{"allow":["**"],"deny":["*.sqlite"]}}`)

	// No terminal (stdin is a pipe) and no --yes: refused, exit 1.
	_, errs, code := c.run("", "read", ".env")
	if code != 1 || !strings.HasPrefix(errs, "approval_refused: ") || strings.Contains(errs, "abc123") {
		t.Fatalf("read .env: %d %q", code, errs)
	}
	if _, errs, code := c.run("", "read", "keys/deploy.pem"); code != 1 || !strings.Contains(errs, `"*.pem"`) {
		t.Fatalf("read a .pem: %d %q", code, errs)
	}
	// --yes approves this call, and the read shows the real content.
	out, _, code := c.run("", "read", ".env", "--yes", "--raw")
	if code != 0 || !strings.Contains(out, "API_KEY=abc123") {
		t.Fatalf("read .env --yes: %d %q", code, out)
	}
	// Only for that call.
	if _, _, code := c.run("", "read", ".env"); code != 1 {
		t.Fatalf("approval outlived its call: %d", code)
	}
	// The summary masks the secrets; it needs approval too.
	out, _, code = c.run("", "summary", ".env", "--yes", "--json")
	if code != 0 || strings.Contains(out, "abc123") || strings.Contains(out, "pw123456") || !strings.Contains(out, "[REDACTED]") {
		t.Fatalf("summary of .env: %d %s", code, out)
	}
	// Denied paths stay denied, --yes or not, for reads and writes.
	for _, args := range [][]string{{"read", "secret/plan.txt", "--yes"}, {"write", "secret/plan.txt", "--mode", "append", "--yes"}, {"write", "secret/new.txt", "--mode", "create"}} {
		_, errs, code := c.run("x\n", args...)
		if code != 1 || !strings.HasPrefix(errs, "denied: ") || !strings.Contains(errs, `"secret/**"`) {
			t.Fatalf("%v: %d %q", args, code, errs)
		}
	}
	// Writing the repository's configuration needs approval.
	c.run("", "read", ".sightline.json")
	if _, errs, code := c.run("{}\n", "write", ".sightline.json", "--mode", "overwrite"); code != 1 || !strings.HasPrefix(errs, "approval_refused: ") {
		t.Fatalf("overwrite .sightline.json: %d %q", code, errs)
	}
	if _, errs, code := c.run("{}\n", "write", ".sightline.json", "--mode", "overwrite", "--yes"); code != 0 {
		t.Fatalf("overwrite .sightline.json --yes: %d %q", code, errs)
	}
	// The audit log has every call: reads, refusals, writes.
	rows := auditRows(t, c)
	count := map[string]int{}
	for _, r := range rows {
		e, _ := r["error"].(string)
		count[fmt.Sprint(r["method"], " ", r["path"], " ", r["outcome"], " ", e)]++
	}
	for want, n := range map[string]int{
		"sightline/read .env refused approval_refused":             2,
		"sightline/read .env ok ":                                  1,
		"sightline/read secret/plan.txt refused denied":            1,
		"sightline/write secret/plan.txt refused denied":           1,
		"sightline/write .sightline.json refused approval_refused": 1,
		"sightline/write .sightline.json ok ":                      1,
		"sightline/summary .env ok ":                               1,
	} {
		if count[want] != n {
			t.Errorf("audit: %d × %q, want %d (all: %v)", count[want], want, n, count)
		}
	}
	for _, r := range rows {
		if r["method"] == "sightline/write" && r["outcome"] == "ok" && (r["before"] == nil || r["after"] == nil || r["before"] == r["after"]) {
			t.Errorf("write without hashes before and after: %v", r)
		}
	}
	if rows := auditRows(t, c, "--path", ".env"); len(rows) != 4 {
		t.Errorf("audit --path .env: %d rows", len(rows))
	}
}

func TestCLIHistoryDiffRollback(t *testing.T) {
	orig := map[string]string{"crlf.txt": "a\r\nb\r\nc\r\n", "bom.txt": "\ufeffone\ntwo"}
	c := newCLI(t, orig).withUserConfig(t, "")
	for name, text := range orig {
		c.run("", "read", name)
		if _, errs, code := c.run("new line\n", "write", name, "--mode", "append"); code != 0 {
			t.Fatalf("%s: append: %q", name, errs)
		}
		mid, _ := os.ReadFile(filepath.Join(c.dir, name))
		if _, errs, code := c.run("all new\n", "write", name, "--mode", "overwrite"); code != 0 {
			t.Fatalf("%s: overwrite: %q", name, errs)
		}
		out, _, code := c.run("", "history", name, "--json")
		var h struct {
			Versions []struct {
				ID     int64  `json:"id"`
				Method string `json:"method"`
			} `json:"versions"`
		}
		if err := json.Unmarshal([]byte(out), &h); code != 0 || err != nil || len(h.Versions) != 3 {
			t.Fatalf("%s: history: %d %s", name, code, out)
		}
		out, _, code = c.run("", "diff", name)
		if code != 0 || !strings.Contains(out, "+all new") || !strings.Contains(out, "-new line") {
			t.Fatalf("%s: diff: %d %s", name, code, out)
		}
		out, _, code = c.run("", "diff", name, "--from", fmt.Sprint(h.Versions[0].ID), "--to", fmt.Sprint(h.Versions[1].ID))
		if code != 0 || !strings.Contains(out, "+new line") {
			t.Fatalf("%s: diff 1..2: %d %s", name, code, out)
		}
		for _, v := range []struct {
			id   int64
			want string
		}{{h.Versions[1].ID, string(mid)}, {h.Versions[0].ID, text}} {
			if _, errs, code := c.run("", "rollback", name, fmt.Sprint(v.id)); code != 0 {
				t.Fatalf("%s: rollback %d: %q", name, v.id, errs)
			}
			if got, _ := os.ReadFile(filepath.Join(c.dir, name)); string(got) != v.want {
				t.Fatalf("%s: rolled back to %d: %q, want %q", name, v.id, got, v.want)
			}
		}
	}
	if _, errs, code := c.run("", "rollback", "crlf.txt", "9999"); code != 1 || !strings.HasPrefix(errs, "not_found: ") {
		t.Fatalf("rollback to an unknown version: %d %q", code, errs)
	}
}

// Four processes write at once, fifty writes each: every call is in the
// audit log, and no "database is locked" reaches a user.
func TestCLIAuditConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("200 processes")
	}
	c := newCLI(t, nil).withUserConfig(t, "")
	const procs, writes = 4, 50
	var wg sync.WaitGroup
	errs := make(chan string, procs*writes)
	for p := range procs {
		wg.Go(func() {
			name := fmt.Sprintf("f%d.txt", p)
			session := fmt.Sprintf("s%d", p)
			for i := range writes {
				args := []string{"write", name, "--mode", "append", "--session", session}
				if i == 0 {
					args[3] = "create"
				}
				_, stderr, code := c.run(fmt.Sprintf("line %d\n", i), args...)
				if code != 0 || strings.Contains(stderr, "locked") {
					errs <- fmt.Sprintf("%s write %d: %d %s", name, i, code, stderr)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	rows := auditRows(t, c)
	per := map[string]int{}
	for _, r := range rows {
		if r["method"] == "sightline/write" && r["outcome"] == "ok" {
			per[r["session"].(string)]++
		}
	}
	for p := range procs {
		if n := per[fmt.Sprintf("s%d", p)]; n != writes {
			t.Errorf("session s%d: %d audit rows, want %d", p, n, writes)
		}
	}
	for p := range procs {
		got, _ := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("f%d.txt", p)))
		if n := strings.Count(string(got), "\n"); n != writes {
			t.Errorf("f%d.txt has %d lines", p, n)
		}
	}
}

// TestCLIHistoryOfManyEdits: forty one-line edits of a 3,000-line file,
// kept as chains of deltas; a rollback to a version in the middle of a
// chain gives its exact text back.
func TestCLIHistoryOfManyEdits(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	c := newCLI(t, map[string]string{"big.txt": b.String()}).withUserConfig(t, "")
	c.run("", "read", "big.txt", "--budget", "100000000")
	var texts []string
	for i := range 40 {
		edit := fmt.Sprintf(`[{"type":"replace_line","ref":"%d:%s","new_content":"edited %d"}]`, 100+i*50, hashline.Hash(fmt.Sprintf("line %d", 99+i*50)), i)
		if out, errs, code := c.run(edit, "edit", "big.txt", "--edits", "-"); code != 0 {
			t.Fatalf("edit %d: %s %s", i, out, errs)
		}
		got, _ := os.ReadFile(filepath.Join(c.dir, "big.txt"))
		texts = append(texts, string(got))
	}
	out, _, _ := c.run("", "history", "big.txt", "--json")
	var h struct {
		Versions []struct {
			ID int64 `json:"id"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || len(h.Versions) != 41 {
		t.Fatalf("history: %v %s", err, out)
	}
	for _, k := range []int{37, 20} {
		if _, errs, code := c.run("", "rollback", "big.txt", fmt.Sprint(h.Versions[k+1].ID)); code != 0 {
			t.Fatalf("rollback: %s", errs)
		}
		if got, _ := os.ReadFile(filepath.Join(c.dir, "big.txt")); string(got) != texts[k] {
			t.Fatalf("rolled back to edit %d: the text differs", k)
		}
	}
}

// TestCLIReadsSurviveAnOutsideChangeAfterAnEdit: after an edit, sightline
// keeps no line hashes of the text it wrote (the history holds that text);
// when another program then changes the file, the session's reads still
// move through the line diff, computed from the history's copy.
func TestCLIReadsSurviveAnOutsideChangeAfterAnEdit(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	c := newCLI(t, map[string]string{"f.txt": b.String()}).withUserConfig(t, "")
	c.run("", "read", "f.txt", "--budget", "100000000")
	edit := fmt.Sprintf(`[{"type":"replace_line","ref":"1000:%s","new_content":"edited"}]`, hashline.Hash("line 999"))
	if out, errs, code := c.run(edit, "edit", "f.txt", "--edits", "-"); code != 0 {
		t.Fatalf("edit: %s %s", out, errs)
	}
	// Another program inserts two lines at the top.
	p := filepath.Join(c.dir, "f.txt")
	cur, _ := os.ReadFile(p)
	os.WriteFile(p, append([]byte("new 1\nnew 2\n"), cur...), 0o644)
	edit = fmt.Sprintf(`[{"type":"replace_line","ref":"1502:%s","new_content":"edited again"}]`, hashline.Hash("line 1499"))
	if out, errs, code := c.run(edit, "edit", "f.txt", "--edits", "-"); code != 0 {
		t.Fatalf("an edit of a line read before the outside change was refused: %s %s", out, errs)
	}
	// The two inserted lines were never shown.
	edit = fmt.Sprintf(`[{"type":"replace_line","ref":"1:%s","new_content":"x"}]`, hashline.Hash("new 1"))
	if _, errs, code := c.run(edit, "edit", "f.txt", "--edits", "-"); code != 1 || !strings.Contains(errs, "unread") {
		t.Fatalf("an edit of a line never shown: %d %s", code, errs)
	}
}
