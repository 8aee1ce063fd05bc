package hook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sightline-lsp/sightline/hook"
)

// TestInstallKeepsTheRest: install adds the hooks and nothing else (the
// user's keys, their order, their own hooks stay), twice is once, and
// uninstall gives back the file it was given.
func TestInstallKeepsTheRest(t *testing.T) {
	user := `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "my-check.sh"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Read"
    ]
  }
}
`
	cmd := "/opt/bin/sightline hook claude"
	out, changed, err := hook.Install([]byte(user), "claude", cmd, hook.ClaudeHooks)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != len(hook.ClaudeHooks) {
		t.Fatalf("changed: %q", changed)
	}
	var s struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	if s.Model != "opus" || len(s.Hooks["PreToolUse"]) != 2 || s.Hooks["PreToolUse"][0].Hooks[0].Command != "my-check.sh" ||
		s.Hooks["PreToolUse"][1].Matcher != "Edit|MultiEdit|Write" || s.Hooks["SessionStart"][0].Matcher != "compact|clear" {
		t.Fatalf("installed:\n%s", out)
	}
	if strings.Index(string(out), `"model"`) > strings.Index(string(out), `"permissions"`) {
		t.Fatalf("keys reordered:\n%s", out)
	}
	again, changed, err := hook.Install(out, "claude", cmd, hook.ClaudeHooks)
	if err != nil || len(changed) != 0 || string(again) != string(out) {
		t.Fatalf("second install changed %q", changed)
	}
	back, changed, err := hook.Uninstall(out, "claude")
	if err != nil || len(changed) != 4 { // one line per event
		t.Fatalf("uninstall: %v %q", err, changed)
	}
	if string(back) != user {
		t.Fatalf("uninstall left:\n%s\nwant:\n%s", back, user)
	}
	if _, _, err := hook.Install([]byte("{not json"), "claude", cmd, hook.ClaudeHooks); err == nil {
		t.Fatal("a broken settings file was edited")
	}
	fresh, _, err := hook.Install(nil, "claude", cmd, hook.ClaudeHooks)
	if err != nil || !strings.Contains(string(fresh), cmd) {
		t.Fatalf("no settings yet: %v\n%s", err, fresh)
	}
	if empty, _, _ := hook.Uninstall(fresh, "claude"); strings.TrimSpace(string(empty)) != "{}" {
		t.Fatalf("uninstall of a fresh install: %s", empty)
	}
}

// TestInstallFromAMovedBinary: installing again from another path updates
// sightline's hooks in place instead of adding a second set.
func TestInstallFromAMovedBinary(t *testing.T) {
	first, _, err := hook.Install(nil, "codex", "/old/bin/sightline hook codex", hook.CodexHooks)
	if err != nil {
		t.Fatal(err)
	}
	moved, changed, err := hook.Install(first, "codex", "/new/bin/sightline hook codex", hook.CodexHooks)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(moved), "/old/") || strings.Count(string(moved), "/new/bin/sightline hook codex") != len(hook.CodexHooks) {
		t.Fatalf("after the move:\n%s", moved)
	}
	if len(changed) != len(hook.CodexHooks) || !strings.HasPrefix(changed[0], "updated") {
		t.Fatalf("changed: %q", changed)
	}
}

// TestInstallKeepsTheBytes: the user's strings stay as written (&&, <,
// \u00e9), their numbers, their layout (four spaces, a group on one line);
// what is added follows that layout; uninstall gives back the same bytes.
func TestInstallKeepsTheBytes(t *testing.T) {
	user := "{\n" +
		"    \"model\": \"opus\",\n" +
		"    \"env\": {\"GREETING\": \"a && b < c > d\", \"ACCENT\": \"caf\\u00e9\"},\n" +
		"    \"n\": 1.50,\n" +
		"    \"hooks\": {\n" +
		"        \"PreToolUse\": [\n" +
		"            { \"matcher\": \"Bash\", \"hooks\": [ { \"type\": \"command\", \"command\": \"test -f x && ./check.sh < in\" } ] }\n" +
		"        ]\n" +
		"    }\n" +
		"}\n"
	cmd := "/opt/a&b/sightline hook claude"
	out, _, err := hook.Install([]byte(user), "claude", cmd, hook.ClaudeHooks)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Fatalf("not JSON:\n%s", out)
	}
	for _, kept := range []string{
		"    \"env\": {\"GREETING\": \"a && b < c > d\", \"ACCENT\": \"caf\\u00e9\"},\n    \"n\": 1.50,\n",
		"            { \"matcher\": \"Bash\", \"hooks\": [ { \"type\": \"command\", \"command\": \"test -f x && ./check.sh < in\" } ] },\n" +
			"            {\n                \"matcher\": \"Edit|MultiEdit|Write\",\n",
		`"command": "/opt/a&b/sightline hook claude"`,
		"        ],\n        \"PostToolUse\": [\n            {\n",
	} {
		if !strings.Contains(string(out), kept) {
			t.Fatalf("installed:\n%s\nwithout:\n%s", out, kept)
		}
	}
	back, _, err := hook.Uninstall(out, "claude")
	if err != nil || string(back) != user {
		t.Fatalf("uninstall (%v) left:\n%s\nwant:\n%s", err, back, user)
	}
	// A file on one line stays on one line, its line breaks (CRLF) kept.
	for _, user := range []string{`{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[]}]}}`, "{\r\n  \"model\": \"opus\"\r\n}\r\n"} {
		out, _, err := hook.Install([]byte(user), "claude", cmd, hook.ClaudeHooks)
		if err != nil || !json.Valid(out) || strings.Count(string(out), "\n") != strings.Count(string(out), "\r\n") ||
			!strings.Contains(user, "\n") && strings.Contains(string(out), "\n") {
			t.Fatalf("%v:\n%q", err, out)
		}
		if back, _, err := hook.Uninstall(out, "claude"); err != nil || string(back) != user {
			t.Fatalf("uninstall (%v) left:\n%q\nwant:\n%q", err, back, user)
		}
	}
}

// TestInstallUninstallRemovesOnlyOurs: a hook of sightline's among the
// user's goes with its comma, the user's stay byte for byte.
func TestInstallUninstallRemovesOnlyOurs(t *testing.T) {
	user := `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit|MultiEdit|Write", "hooks": [{"type": "command", "command": "/x/sightline hook claude"}]},
      {"matcher": "Bash", "hooks": [{"type":"command","command":"mine && true"}]}
    ],
    "PostToolUse": [
      {"matcher": "Read", "hooks": [{"type": "command", "command": "log <x"}, {"type": "command", "command": "/x/sightline hook claude --keep-reads", "timeout": 5}]}
    ],
    "PreCompact": [ {"hooks": [{"type": "command", "command": "'/my dir/sightline' hook claude"}]} ]
  },
  "after": true
}
`
	want := `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type":"command","command":"mine && true"}]}
    ],
    "PostToolUse": [
      {"matcher": "Read", "hooks": [{"type": "command", "command": "log <x"}]}
    ]
  },
  "after": true
}
`
	got, changed, err := hook.Uninstall([]byte(user), "claude")
	if err != nil || string(got) != want || len(changed) != 3 {
		t.Fatalf("uninstall (%v, %q) left:\n%s\nwant:\n%s", err, changed, got, want)
	}
}

// TestInstallKeepsOptions: installing again (here from a moved program)
// keeps the options the user gave sightline's hooks and their other
// fields.
func TestInstallKeepsOptions(t *testing.T) {
	user := `{"hooks": {
  "PreCompact": [{"hooks": [{"type": "command", "command": "/old/bin/sightline hook claude --keep-reads", "timeout": 5}]}],
  "SessionStart": [{"matcher": "compact|clear", "hooks": [{"type": "command", "command": "SIGHTLINE_SESSION=x '/old dir/sightline' hook claude --keep-reads"}]}]
}}
`
	out, changed, err := hook.Install([]byte(user), "claude", "/new/bin/sightline hook claude", hook.ClaudeHooks)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"command": "/new/bin/sightline hook claude --keep-reads", "timeout": 5}`,
		`"command": "SIGHTLINE_SESSION=x /new/bin/sightline hook claude --keep-reads"}`,
	} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("installed:\n%s\nwithout %s", out, want)
		}
	}
	if strings.Contains(string(out), "old") || len(changed) != 5 || !strings.HasSuffix(changed[3], "it runs /new/bin/sightline hook claude --keep-reads") {
		t.Fatalf("changed %q:\n%s", changed, out)
	}
	again, changed, err := hook.Install(out, "claude", "/new/bin/sightline hook claude", hook.ClaudeHooks)
	if err != nil || len(changed) != 0 || string(again) != string(out) {
		t.Fatalf("second install changed %q (%v)", changed, err)
	}
	// Windows' program, sightline.exe, is sightline's too.
	win := `{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "'C:\\old\\sightline.exe' hook claude"}]}]}}`
	if out, changed, err := hook.Uninstall([]byte(win), "claude"); err != nil || len(changed) != 1 || string(out) != "{}" {
		t.Fatalf("uninstall of sightline.exe (%v, %q):\n%s", err, changed, out)
	}
}

// TestInstallRefusesConfusingSettings: settings sightline cannot read as
// the agent does are refused with what to do, by install and uninstall
// alike, and nothing is returned to write.
func TestInstallRefusesConfusingSettings(t *testing.T) {
	for _, c := range []struct{ name, settings, want string }{
		{"not JSON", "{not json", "not JSON"},
		{"trailing text", "{} {}", "not JSON"},
		{"comments", "{\n  // mine\n  \"model\": \"x\"\n}\n", "comment at line 2"},
		{"block comment", "{\"model\": \"x\" /* mine */}", "comment at line 1"},
		{"an array", "[]", "should be an object"},
		{"hooks a list", `{"hooks": []}`, "hooks (line 1) should be an object of events, as the agent reads it; it is a list"},
		{"hooks a string", `{"hooks": "x"}`, "it is a string"},
		{"an event not a list", "{\"hooks\": {\n\"PreToolUse\": {}}}", "hooks.PreToolUse (line 2) should be a list"},
		{"hooks twice", "{\"hooks\": {},\n \"hooks\": {}}", `"hooks" appears twice (line 2)`},
		{"an event twice", `{"hooks": {"PreToolUse": [], "PreToolUse": []}}`, `hooks: the member "PreToolUse" appears twice`},
		{"a key twice, escaped", `{"hooks": {}, "ho\u006fks": {}}`, `"hooks" appears twice`},
		{"a byte order mark", "\ufeff{}", "byte order mark"},
		{"a number twice", `{"n": 1e999, "n": 1}`, `"n" appears twice`},
	} {
		if _, _, err := hook.Install([]byte(c.settings), "claude", "/x/sightline hook claude", hook.ClaudeHooks); err == nil ||
			!strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s: install: %v", c.name, err)
		}
		if c.name == "an event not a list" {
			continue // none of sightline's hooks can be in it
		}
		if out, _, err := hook.Uninstall([]byte(c.settings), "claude"); err == nil || out != nil {
			t.Errorf("%s: uninstall: %v", c.name, err)
		}
	}
}

// TestInstallProperties: for settings of any layout (one line, two spaces,
// tabs, CRLF), with the user's own hooks or none, install gives JSON
// holding every hook once, a second install changes nothing, and uninstall
// gives back the very bytes (the user's hooks kept, none of the user's
// events left empty by it).
func TestInstallProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type kv = struct {
			k string
			v any
		}
		var root []kv
		for i := range rapid.IntRange(0, 3).Draw(t, "keys") {
			root = append(root, kv{fmt.Sprintf("k%d", i), rapid.SampledFrom([]any{"a && b < c", 1.5, true, nil, []any{"x", 2.0}, map[string]any{"y": "é\u2028"}}).Draw(t, "value")})
		}
		if rapid.Bool().Draw(t, "hooks") {
			var events []kv
			for _, ev := range []string{"PreToolUse", "Stop", "PreCompact"} {
				if rapid.Bool().Draw(t, ev) {
					events = append(events, kv{ev, []any{map[string]any{"matcher": rapid.SampledFrom([]string{"Bash", "Edit|MultiEdit|Write", ""}).Draw(t, "matcher"),
						"hooks": []any{map[string]any{"type": "command", "command": "mine.sh && echo <ok>"}}}}})
				}
			}
			if len(events) > 0 { // uninstall removes a hooks object it leaves empty
				root = slices.Insert(root, rapid.IntRange(0, len(root)).Draw(t, "at"), kv{"hooks", events})
			}
		}
		var enc func(v any) string
		enc = func(v any) string {
			switch v := v.(type) {
			case []kv:
				var parts []string
				for _, m := range v {
					parts = append(parts, enc(m.k)+":"+enc(m.v))
				}
				return "{" + strings.Join(parts, ",") + "}"
			default:
				var b bytes.Buffer
				e := json.NewEncoder(&b)
				e.SetEscapeHTML(false)
				e.Encode(v)
				return strings.TrimSpace(b.String())
			}
		}
		user := enc(root)
		if unit := rapid.SampledFrom([]string{"", "  ", "\t", "    "}).Draw(t, "indent"); unit != "" {
			var b bytes.Buffer
			json.Indent(&b, []byte(user), "", unit)
			user = b.String() + "\n"
			if rapid.Bool().Draw(t, "crlf") {
				user = strings.ReplaceAll(user, "\n", "\r\n")
			}
		}
		cmd := "/x/sightline hook claude"
		out, _, err := hook.Install([]byte(user), "claude", cmd, hook.ClaudeHooks)
		if err != nil || !json.Valid(out) {
			t.Fatalf("install (%v):\n%s\nof:\n%s", err, out, user)
		}
		var s struct {
			Hooks map[string][]struct {
				Matcher string
				Hooks   []struct{ Command string }
			}
		}
		json.Unmarshal(out, &s)
		for _, h := range hook.ClaudeHooks {
			n := 0
			for _, g := range s.Hooks[h.Event] {
				for _, e := range g.Hooks {
					if e.Command == cmd && g.Matcher == h.Matcher {
						n++
					}
				}
			}
			if n != 1 {
				t.Fatalf("%s installed %d times:\n%s", h.Event, n, out)
			}
		}
		if again, changed, err := hook.Install(out, "claude", cmd, hook.ClaudeHooks); err != nil || len(changed) > 0 || !bytes.Equal(again, out) {
			t.Fatalf("a second install changed %q (%v)", changed, err)
		}
		back, _, err := hook.Uninstall(out, "claude")
		if err != nil || string(back) != user {
			t.Fatalf("uninstall (%v):\n%q\nwant:\n%q", err, back, user)
		}
	})
}
