package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sightline-lsp/sightline/internal/gosrc"
)

// hookEvents measures every hook event of Claude Code and Codex against
// `sightline version` in the same run, taking turns, with the workspace's
// daemon running (its live owner: the hook is its client), and the first
// call of a new session (a session the daemon has not served yet).
func hookEvents(bin string, runs int) error {
	tmp, bin, ws, err := prepare(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src, err := gosrc.Lines(2000)
	if err != nil {
		return err
	}
	hooked := filepath.Join(ws, "hooked.go")
	text := strings.Join(src, "")
	if err := os.WriteFile(hooked, []byte(text), 0o644); err != nil {
		return err
	}
	c := cli{bin: bin, ws: ws, env: append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "SIGHTLINE_DAEMON=1", "SIGHTLINE_DAEMON_IDLE=10m", "CLAUDE_PROJECT_DIR="+ws)}
	defer c.run(nil, "daemon", "stop")
	session := "bench"
	event := func(ev map[string]any) []byte {
		ev["session_id"], ev["cwd"] = session, ws
		b, _ := json.Marshal(ev)
		return b
	}
	// An old_string found once in the file: its line and the next.
	old, at := "", 0
	for i := 999; i < 1990 && old == ""; i++ {
		if s := src[i] + src[i+1]; len(strings.TrimSpace(s)) > 20 && strings.Count(text, s) == 1 {
			old, at = s, i+1
		}
	}
	readAll := map[string]any{"type": "text", "file": map[string]any{"filePath": hooked, "content": strings.TrimSuffix(text, "\n"), "numLines": 2000, "startLine": 1, "totalLines": 2000}}
	edit := map[string]any{"file_path": hooked, "old_string": old, "new_string": "// bench\n"}
	multi := map[string]any{"file_path": hooked, "edits": []map[string]any{{"old_string": old, "new_string": "// bench\n"}}}
	write := map[string]any{"file_path": filepath.Join(ws, "new.go"), "content": "package x\n"}
	sedCmd := fmt.Sprintf("sed -n '%d,%dp' hooked.go", at, at+1)
	patch := fmt.Sprintf("*** Begin Patch\n*** Update File: hooked.go\n@@\n-%s+// bench\n*** End Patch\n", src[at-1])
	type ev struct {
		name  string
		agent string
		in    map[string]any
	}
	events := []ev{
		{"claude PreToolUse Read (not judged)", "claude", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": hooked}}},
		{"claude PostToolUse Read, 2,000 lines", "claude", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": hooked}, "tool_response": readAll}},
		{"claude PreToolUse Edit of a read line", "claude", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit}},
		{"claude PreToolUse MultiEdit", "claude", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "MultiEdit", "tool_input": multi}},
		{"claude PreToolUse Write of a new file", "claude", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": write}},
		{"claude PostToolUse Edit", "claude", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": edit, "tool_response": map[string]any{}}},
		{"claude PostToolUse Grep -n", "claude", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Grep", "tool_input": map[string]any{"path": hooked}, "tool_response": map[string]any{"mode": "content", "content": fmt.Sprintf("%d:%s", at, strings.TrimSuffix(src[at-1], "\n"))}}},
		{"claude PostToolUse Bash sed -n", "claude", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": sedCmd}, "tool_response": map[string]any{"stdout": src[at-1] + src[at], "stderr": ""}}},
		{"codex PreToolUse apply_patch", "codex", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}}},
		{"codex PostToolUse apply_patch", "codex", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}}},
		{"codex PreToolUse Bash", "codex", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}}},
		{"codex PostToolUse Bash sed -n", "codex", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": sedCmd}, "tool_response": src[at-1] + src[at]}},
	}
	names := []string{"`version`"}
	for _, e := range events {
		names = append(names, "`hook "+e.agent+"` "+strings.TrimPrefix(strings.TrimPrefix(e.name, "claude "), "codex "))
	}
	names = append(names, "first call of a session: `hook claude` PreToolUse Edit")
	first := 0
	cmdOf := func(i int) ([]string, []byte) {
		k := i % len(names)
		switch {
		case k == 0:
			return []string{"version"}, nil
		case k == len(names)-1:
			first++
			session = fmt.Sprintf("new-%d", first)
			defer func() { session = "bench" }()
			return []string{"hook", "claude"}, event(events[2].in)
		}
		return []string{"hook", events[k-1].agent}, event(events[k-1].in)
	}
	// The daemon started by a first call, then every event once.
	if _, _, _, err := c.run(nil, "read", hooked+":1-2"); err != nil {
		return err
	}
	if err := waitDaemon(c); err != nil {
		return err
	}
	for i := range names {
		a, in := cmdOf(i)
		if _, _, _, err := c.run(in, a...); err != nil {
			return err
		}
	}
	st, err := c.measureEach(runs*len(names), len(names), cmdOf)
	if err != nil {
		return err
	}
	fmt.Printf("hook events through the workspace's daemon, %d runs each, taking turns (%s)\n", runs, machine())
	// Every event within 1.3× version, a session's first within 2×.
	bounds := map[int]float64{len(names) - 1: 2}
	for i := 1; i < len(names)-1; i++ {
		bounds[i] = 1.3
	}
	printFixed("(CPU is the hook's, not the daemon's)", names, st, bounds)
	return nil
}
