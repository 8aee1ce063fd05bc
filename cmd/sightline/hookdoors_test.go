package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestHookInstallEveryAgent: `sightline hook install AGENT` for the agents
// beyond Claude Code and Codex writes where each agent reads its hooks,
// for the project and for the user: a dry run changes nothing, a second
// install changes nothing, a file of the user's is kept (Cursor's
// hooks.json merged into, a Cline hook script of the user's refused), and
// uninstall removes exactly what install added.
func TestHookInstallEveryAgent(t *testing.T) {
	c := newCLI(t, agentFiles)
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home, "USERPROFILE="+home, "XDG_CONFIG_HOME=", "COPILOT_HOME=")
	// Where each agent's hooks go, project and user, and a word the file
	// holds once they are there.
	cases := []struct {
		agent, project, user string
		want                 string
	}{
		{"gemini", ".gemini/settings.json", ".gemini/settings.json", `"BeforeModel"`},
		{"copilot", ".github/hooks/sightline.json", ".copilot/hooks/sightline.json", `"preToolUse"`},
		{"cursor", ".cursor/hooks.json", ".cursor/hooks.json", `"beforeReadFile"`},
		{"cline", ".clinerules/hooks/PreToolUse", "Documents/Cline/Rules/Hooks/PreToolUse", "hook cline"},
		{"opencode", ".opencode/plugins/sightline.js", ".config/opencode/plugins/sightline.js", `"tool.execute.before"`},
	}
	for _, tc := range cases {
		for _, scope := range []string{"--project", "--user"} {
			path := filepath.Join(c.dir, tc.project)
			if scope == "--user" {
				path = filepath.Join(home, tc.user)
			}
			out, errOut, code := c.run("", "hook", "install", tc.agent, scope, "--dry-run")
			if code != 0 || !strings.Contains(out, "dry run") {
				t.Fatalf("%s %s dry run: %d %s %s", tc.agent, scope, code, out, errOut)
			}
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("%s %s: the dry run wrote %s", tc.agent, scope, path)
			}
			if out, errOut, code = c.run("", "hook", "install", tc.agent, scope); code != 0 {
				t.Fatalf("%s %s: %d %s %s", tc.agent, scope, code, out, errOut)
			}
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), tc.want) || !strings.Contains(string(b), c.bin) {
				t.Fatalf("%s %s: %s: %v\n%s", tc.agent, scope, path, err, b)
			}
			if out, _, _ = c.run("", "hook", "install", tc.agent, scope); !strings.Contains(out, "already installed") {
				t.Fatalf("%s %s installed twice: %s", tc.agent, scope, out)
			}
			if out, errOut, code = c.run("", "hook", "uninstall", tc.agent, scope); code != 0 {
				t.Fatalf("%s %s uninstall: %d %s %s", tc.agent, scope, code, out, errOut)
			}
			b, err = os.ReadFile(path)
			if err == nil && strings.Contains(string(b), "sightline") {
				t.Fatalf("%s %s: uninstall left %s:\n%s", tc.agent, scope, path, b)
			}
		}
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(filepath.Join(c.dir, ".clinerules/hooks/PreToolUse")); err == nil {
			t.Fatalf("uninstall left Cline's script: %v", fi.Mode())
		}
	}

	// Cursor's hooks.json of the user's: merged into, and left as it was.
	cursor := filepath.Join(c.dir, ".cursor", "hooks.json")
	mine := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [\n      { \"command\": \"./format.sh\" }\n    ]\n  }\n}\n"
	os.WriteFile(cursor, []byte(mine), 0o644)
	if out, errOut, code := c.run("", "hook", "install", "cursor", "--project"); code != 0 {
		t.Fatalf("cursor: %d %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(cursor)
	var parsed struct {
		Version int
		Hooks   map[string][]struct{ Command string }
	}
	if err := json.Unmarshal(b, &parsed); err != nil || parsed.Version != 1 || len(parsed.Hooks["afterFileEdit"]) != 2 || parsed.Hooks["afterFileEdit"][0].Command != "./format.sh" || len(parsed.Hooks["preToolUse"]) != 1 {
		t.Fatalf("merged: %v\n%s", err, b)
	}
	c.run("", "hook", "uninstall", "cursor", "--project")
	if b, _ := os.ReadFile(cursor); string(b) != mine {
		t.Fatalf("after uninstall:\n%s", b)
	}

	// A file of sightline's own is known as such whatever the program's
	// name.
	sl := filepath.Join(t.TempDir(), "sl")
	if runtime.GOOS == "windows" {
		sl += ".exe"
	}
	if b, err := os.ReadFile(c.bin); err != nil || os.WriteFile(sl, b, 0o755) != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"copilot", "cline", "opencode"} {
		for i := range 2 {
			cmd := exec.Command(sl, "hook", "install", agent, "--project")
			cmd.Dir, cmd.Env = c.dir, c.env
			out, err := cmd.CombinedOutput()
			if err != nil || i == 1 && !strings.Contains(string(out), "already installed") {
				t.Fatalf("%s installed by %s, time %d: %v\n%s", agent, sl, i+1, err, out)
			}
		}
		c.run("", "hook", "uninstall", agent, "--project")
	}

	// A Cline hook script of the user's is theirs.
	script := filepath.Join(c.dir, ".clinerules", "hooks", "PreToolUse")
	os.MkdirAll(filepath.Dir(script), 0o755)
	os.WriteFile(script, []byte("#!/bin/sh\necho '{\"cancel\":false}'\n"), 0o755)
	if out, errOut, code := c.run("", "hook", "install", "cline", "--project"); code == 0 || !strings.Contains(errOut, "not sightline's") {
		t.Fatalf("over the user's script: %d %s %s", code, out, errOut)
	}
	if b, _ := os.ReadFile(script); !strings.Contains(string(b), "echo") {
		t.Fatalf("the user's script changed: %s", b)
	}
}

// TestOpencodePlugin runs the plugin `sightline hook install opencode`
// writes under node, as opencode calls a plugin's hooks (tool.execute.before
// with the tool's args in output, tool.execute.after with its output, the
// session.compacted event): a read counts, an edit of a line never read
// throws sightline's refusal (opencode gives the model the error), the
// retry passes, and a compaction expires what was read.
func TestOpencodePlugin(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node")
	}
	c := newCLI(t, agentFiles)
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home, "USERPROFILE="+home)
	if out, errOut, code := c.run("", "hook", "install", "opencode", "--project"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	plugin := filepath.Join(c.dir, ".opencode", "plugins", "sightline.js")
	f := filepath.Join(c.dir, "f.txt")
	driver := filepath.Join(t.TempDir(), "drive.mjs")
	os.WriteFile(driver, []byte(`
import { pathToFileURL } from "node:url"
const [plugin, dir, file] = process.argv.slice(2)
const { Sightline } = await import(pathToFileURL(plugin).href)
const hooks = await Sightline({ directory: dir, worktree: dir })
const call = async (tool, args, output) => {
  const input = { tool, sessionID: "ses_1", callID: "call_" + Math.random() }
  try {
    await hooks["tool.execute.before"](input, { args })
  } catch (e) {
    return "threw: " + e.message
  }
  await hooks["tool.execute.after"](input, { title: "", output, metadata: {} })
  return "ran"
}
const out = []
out.push(await call("read", { filePath: file, offset: 0, limit: 2 }, "<file>\n00001| one\n00002| two\n</file>"))
const edit = { filePath: file, oldString: "four", newString: "FOUR" }
out.push(await call("edit", edit, ""))
out.push(await call("edit", edit, "Edit applied successfully."))
await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_1" } } })
out.push(await call("edit", { filePath: file, oldString: "one", newString: "ONE" }, ""))
console.log(JSON.stringify(out))
`), 0o644)
	cmd := exec.Command("node", driver, plugin, c.dir, f)
	cmd.Env = c.env
	out, err := runGroup(t, cmd, 60*time.Second)
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var results []string
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &results); err != nil || len(results) != 4 {
		t.Fatalf("results: %v\n%s", err, out)
	}
	if results[0] != "ran" || !strings.HasPrefix(results[1], "threw: ") || !strings.Contains(results[1], "4\tfour") || results[2] != "ran" ||
		!strings.Contains(results[3], "never shown to you") {
		t.Fatalf("results: %q", results)
	}
}
