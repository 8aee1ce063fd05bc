package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A wrong-typed key of .sightline.json is refused by name and the rest of
// the file applies: its deny rules hold, and every answer says so (the
// JSON's warnings, the text a person or a model reads).
func TestCLIConfigBadKeyKeepsPolicy(t *testing.T) {
	c := newCLI(t, map[string]string{
		"lib/x.py":        "secret = 1\n",
		"a.txt":           "one\n",
		".sightline.json": `{"policy":{"deny":["lib/**"]},"readBudget":"24k","gaurd":"off"}`,
	}).withUserConfig(t, "")
	out, errs, code := c.run("", "read", "lib/x.py")
	if code != 1 || !strings.HasPrefix(errs, "denied: ") || strings.Contains(out, "secret") {
		t.Fatalf("read of a denied file with a bad key beside its rule: %d %q %q", code, out, errs)
	}
	r, _ := c.answer("", "read", "a.txt")
	warn := strings.Join(r.Warnings, "\n")
	if !r.OK || !strings.Contains(warn, `"readBudget"`) || !strings.Contains(warn, `"24k"`) || !strings.Contains(warn, `"gaurd"`) || !strings.Contains(warn, `did you mean "guard"`) {
		t.Fatalf("read --json must warn of both keys by name: %+v", r)
	}
	if !strings.Contains(warn, filepath.Join(c.dir, ".sightline.json")) {
		t.Fatalf("the warning must name the file: %q", warn)
	}
	// The text answer says it as well (on stderr for a person).
	if _, errs, _ := c.run("", "read", "a.txt"); !strings.Contains(errs, `"gaurd"`) {
		t.Fatalf("human read: stderr %q lacks the warning", errs)
	}
}

// A policy that cannot be read closes the workspace: reads and writes are
// refused, naming the file, the key and the fix, never served without it.
func TestCLIConfigUnreadablePolicyRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		file string
		want string
	}{
		"deny a string":     {`{"policy":{"deny":"lib/**"}}`, `"policy.deny"`},
		"policy a list":     {`{"policy":["lib/**"]}`, `"policy" must be an object`},
		"not json":          {`{"policy":{"deny":["lib/**"]},}`, "not valid JSON"},
		"null":              {`null`, "must be a JSON object"},
		"an array":          {`[]`, "must be a JSON object"},
		"duplicate policy":  {`{"policy":{"deny":["lib/**"]},"policy":{}}`, `"policy" is given 2 times`},
		"duplicate deny":    {`{"policy":{"deny":["lib/**"],"deny":[]}}`, `"policy.deny" is given 2 times`},
		"glob not compiled": {`{"policy":{"deny":["lib/[**"]}}`, "does not compile"},
		"misspelled deny":   {`{"policy":{"denny":["lib/**"]}}`, `did you mean "policy.deny"`},
		"misspelled policy": {`{"polciy":{"deny":["lib/**"]}}`, `did you mean "policy"`},
		"invalid utf-8":     {"{\"policy\":{\"deny\":[\"lib/\xff\"]}}", "not valid JSON"},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t, map[string]string{"lib/x.py": "secret = 1\n", "a.txt": "one\n", ".sightline.json": tc.file}).withUserConfig(t, "")
			for _, args := range [][]string{{"read", "a.txt"}, {"read", "lib/x.py"}, {"write", "b.txt", "--mode", "create"}} {
				r, _ := c.answer("x\n", args...)
				if r.OK || r.Error != "denied" || strings.Contains(r.Content, "one") || strings.Contains(r.Content, "secret") {
					t.Fatalf("%v: not refused: %+v", args, r)
				}
				if !strings.Contains(r.Message, ".sightline.json") || !strings.Contains(r.Message, tc.want) {
					t.Fatalf("%v: the refusal must name the file and %q: %q", args, tc.want, r.Message)
				}
			}
			if _, err := os.Stat(filepath.Join(c.dir, "b.txt")); err == nil {
				t.Fatal("a write was served without a policy")
			}
			if r, _ := c.answer("", "files"); r.OK || r.Error != "denied" || !strings.Contains(r.Message, tc.want) {
				t.Fatalf("files: not refused: %+v", r)
			}
			// A call about no file still answers, warning of it.
			out, errs, code := c.run("", "ledger", "--json")
			if code != 0 || !strings.Contains(errs+out, ".sightline.json") {
				t.Fatalf("ledger: %d %q %q", code, out, errs)
			}
		})
	}
}

// The file itself unreadable: a folder, no permission, a symbolic link (to
// a secret outside the workspace), too large, a FIFO.
func TestCLIConfigUnreadableFileRefuses(t *testing.T) {
	cases := map[string]func(t *testing.T, p string){
		"folder": func(t *testing.T, p string) { os.Mkdir(p, 0o755) },
		"symlink": func(t *testing.T, p string) {
			target := filepath.Join(t.TempDir(), "shadow")
			os.WriteFile(target, []byte(`{"readBudget": "root:$6$secrethash"}`), 0o644)
			os.Symlink(target, p)
		},
		"huge": func(t *testing.T, p string) {
			os.WriteFile(p, []byte(`{"guard":"enforce"`+strings.Repeat(" ", 2<<20)+`}`), 0o644)
		},
	}
	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		cases["no permission"] = func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"policy":{"deny":["lib/**"]}}`), 0o000) }
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t, map[string]string{"a.txt": "one\n"}).withUserConfig(t, "")
			setup(t, filepath.Join(c.dir, ".sightline.json"))
			r, _ := c.answer("", "read", "a.txt")
			if r.OK || r.Error != "denied" || !strings.Contains(r.Message, ".sightline.json") || strings.Contains(r.Content, "one") {
				t.Fatalf("read with an unreadable configuration: %+v", r)
			}
			if strings.Contains(r.Message+strings.Join(r.Warnings, " "), "secrethash") {
				t.Fatalf("the linked file's content reached the answer: %+v", r)
			}
		})
	}
}

// The user's own file is read the same way: its bad key is refused by name,
// its unreadable policy closes the workspace.
func TestCLIConfigUserFile(t *testing.T) {
	c := newCLI(t, map[string]string{"a.txt": "one\n", "lib/x.py": "secret = 1\n"}).withUserConfig(t, `{"policy":{"deny":["lib/**"]},"readBudget":"big"}`)
	if _, errs, code := c.run("", "read", "lib/x.py"); code != 1 || !strings.HasPrefix(errs, "denied: ") {
		t.Fatalf("user deny with a bad key beside it: %d %q", code, errs)
	}
	c = newCLI(t, map[string]string{"a.txt": "one\n"}).withUserConfig(t, `{"policy":{"deny":"lib/**"}}`)
	if r, _ := c.answer("", "read", "a.txt"); r.OK || r.Error != "denied" || !strings.Contains(r.Message, "config.json") {
		t.Fatalf("user policy unreadable: %+v", r)
	}
}

// Through MCP the warning and the refusal are in the tool's result, which
// the model reads (stderr is hidden by MCP clients).
func TestMCPConfigWarningsAndRefusal(t *testing.T) {
	c := newCLI(t, map[string]string{
		"lib/x.py": "secret = 1\n", "a.txt": "zebra\n",
		".sightline.json": `{"policy":{"deny":["lib/**"]},"readBudget":"24k"}`,
	}).withUserConfig(t, "")
	s := mcpSession(t, c)
	text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "lib/x.py"})
	if !isErr || strings.Contains(text, "secret") || !strings.Contains(text, "denied") {
		t.Fatalf("MCP read of a denied file: %s", text)
	}
	text, isErr = callText(t, s, "sightline_read", map[string]any{"path": "a.txt"})
	if isErr || !strings.Contains(text, "warning: ") || !strings.Contains(text, `"readBudget"`) {
		t.Fatalf("MCP read must carry the warning: %s", text)
	}

	c = newCLI(t, map[string]string{"a.txt": "zebra\n", ".sightline.json": `{"policy":{"deny":"lib/**"}}`}).withUserConfig(t, "")
	s = mcpSession(t, c)
	text, isErr = callText(t, s, "sightline_read", map[string]any{"path": "a.txt"})
	if !isErr || strings.Contains(text, "zebra") || !strings.Contains(text, `"policy.deny"`) {
		t.Fatalf("MCP read with an unreadable policy: %s", text)
	}
}

// A configuration changed between two calls of one `sightline mcp` working
// on disk: the second call obeys the new file.
func TestMCPConfigChangedBetweenCalls(t *testing.T) {
	c := newCLI(t, map[string]string{"a.txt": "zebra\n", ".sightline.json": `{}`}).withUserConfig(t, "")
	s := mcpSession(t, c)
	if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "a.txt"}); isErr || !strings.Contains(text, "zebra") {
		t.Fatalf("first read: %s", text)
	}
	for _, tc := range []struct{ file, want string }{
		{`{"policy":{"deny":["a.txt"]}}`, `deny rule "a.txt"`},
		{`{"policy":{"deny":"a.txt"}}`, `"policy.deny"`},
	} {
		if err := os.WriteFile(filepath.Join(c.dir, ".sightline.json"), []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "a.txt"}); !isErr || strings.Contains(text, "zebra") || !strings.Contains(text, tc.want) {
			t.Fatalf("read after %s: %s", tc.file, text)
		}
	}
	os.WriteFile(filepath.Join(c.dir, ".sightline.json"), []byte(`{}`), 0o644)
	if text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "a.txt"}); isErr || !strings.Contains(text, "zebra") {
		t.Fatalf("read after the file was fixed: %s", text)
	}
}

// The hook door: Claude Code's own Write of a new file is denied while the
// policy cannot be read, the reason naming the file and the key; with a
// bad key beside a policy that can be read, it passes.
func TestClaudeHookConfigProblems(t *testing.T) {
	c := newCLI(t, map[string]string{"a.txt": "one\n"}).withUserConfig(t, "")
	c.env = append(c.env, "SIGHTLINE_NO_BRIDGE=1", "CLAUDE_PROJECT_DIR="+c.dir)
	write := func() string {
		ev, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": c.dir, "tool_name": "Write",
			"tool_input": map[string]any{"file_path": filepath.Join(c.dir, "new.txt"), "content": "x\n"}})
		out, errs, code := c.run(string(ev), "hook", "claude")
		if code != 0 {
			t.Fatalf("hook: %d %s", code, errs)
		}
		return out
	}
	os.WriteFile(filepath.Join(c.dir, ".sightline.json"), []byte(`{"policy":{"deny":"lib/**"}}`), 0o644)
	if out := write(); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, `policy.deny`) || !strings.Contains(out, ".sightline.json") {
		t.Fatalf("Write under a policy that cannot be read: %s", out)
	}
	os.WriteFile(filepath.Join(c.dir, ".sightline.json"), []byte(`{"policy":{"deny":["lib/**"]},"readBudget":"24k"}`), 0o644)
	if out := write(); strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("Write denied for a bad key beside a policy that can be read: %s", out)
	}
}
