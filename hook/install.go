package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ClaudeHooks are the hooks sightline adds to Claude Code's settings: the
// event, its matcher, and why.
var ClaudeHooks = []struct{ Event, Matcher, Why string }{
	{"PreToolUse", "Edit|MultiEdit|Write", "check an edit against what was read"},
	{"PostToolUse", "Read|Grep|Edit|MultiEdit|Write", "record what was read and written"},
	{"PreCompact", "", "expire reads when the context is compacted"},
	{"SessionStart", "compact|clear", "expire reads after a compaction or clear"},
}

// CodexHooks are the hooks sightline adds to Codex's hooks.json.
var CodexHooks = []struct{ Event, Matcher, Why string }{
	{"PreToolUse", "apply_patch|Bash", "check a patch (the tool's, or one run through the shell) against what was read"},
	{"PostToolUse", "apply_patch|Bash", "record what shell reads showed and what patches wrote"},
	{"PreCompact", "", "expire reads when the context is compacted"},
	{"SessionStart", "compact|clear", "expire reads after a compaction or clear"},
}

// object is a JSON object that keeps its keys' order and its values' bytes,
// so that editing one key leaves the rest of a user's file as it was.
type object []member

type member struct {
	Key string
	Val json.RawMessage
}

func (o *object) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return fmt.Errorf("not a JSON object")
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return err
		}
		*o = append(*o, member{t.(string), v})
	}
	return nil
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o object) get(k string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == k {
			return m.Val, true
		}
	}
	return nil, false
}

func (o *object) set(k string, v json.RawMessage) {
	for i, m := range *o {
		if m.Key == k {
			(*o)[i].Val = v
			return
		}
	}
	*o = append(*o, member{k, v})
}

func (o *object) del(k string) {
	for i, m := range *o {
		if m.Key == k {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

type matcherGroup struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// ours reports whether a hook command is sightline's for an agent
// ("/path/to/sightline hook claude", with or without options).
func ours(command, agent string) bool {
	f := strings.Fields(command)
	for i := 0; i+2 < len(f); i++ {
		if strings.HasSuffix(strings.Trim(f[i], `'"`), "sightline") && f[i+1] == "hook" && f[i+2] == agent {
			return true
		}
	}
	return false
}

// Install adds sightline's hooks (hooks: event, matcher) running command to
// an agent's settings (JSON; empty: none yet), keeping everything else as
// it was. It returns the new settings and what changed, one line each;
// nothing when the hooks are there already.
func Install(settings []byte, agent, command string, hooks []struct{ Event, Matcher, Why string }) ([]byte, []string, error) {
	root, events, err := openSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	var changed []string
	for _, h := range hooks {
		var groups []json.RawMessage
		if raw, ok := events.get(h.Event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, nil, fmt.Errorf("hooks.%s is not a list: %w", h.Event, err)
			}
		}
		present, updated := false, false
		for gi, g := range groups {
			var mg matcherGroup
			if json.Unmarshal(g, &mg) != nil || mg.Matcher != h.Matcher {
				continue
			}
			for hi, e := range mg.Hooks {
				if !ours(e.Command, agent) {
					continue
				}
				present = true
				if e.Command != command {
					// Installed from another path (the program moved):
					// the hook runs this one now, its other fields kept.
					groups[gi], updated = setHookCommand(g, hi, command), true
				}
			}
		}
		if updated {
			raw, _ := json.Marshal(groups)
			events.set(h.Event, raw)
			changed = append(changed, fmt.Sprintf("updated hooks.%s%s: it runs %s", h.Event, matcherNote(h.Matcher), command))
		}
		if present {
			continue
		}
		g, _ := json.Marshal(matcherGroup{Matcher: h.Matcher, Hooks: []hookEntry{{Type: "command", Command: command, Timeout: 30}}})
		groups = append(groups, g)
		raw, _ := json.Marshal(groups)
		events.set(h.Event, raw)
		changed = append(changed, fmt.Sprintf("added hooks.%s%s: %s", h.Event, matcherNote(h.Matcher), h.Why))
	}
	out, err := closeSettings(root, events)
	return out, changed, err
}

func matcherNote(m string) string {
	if m == "" {
		return ""
	}
	return " (" + m + ")"
}

// setHookCommand returns a matcher group with the command of its i-th hook
// replaced, everything else as it was.
func setHookCommand(group json.RawMessage, i int, command string) json.RawMessage {
	var g object
	var hooks []json.RawMessage
	if json.Unmarshal(group, &g) != nil {
		return group
	}
	raw, _ := g.get("hooks")
	if json.Unmarshal(raw, &hooks) != nil || i >= len(hooks) {
		return group
	}
	var h object
	if json.Unmarshal(hooks[i], &h) != nil {
		return group
	}
	c, _ := json.Marshal(command)
	h.set("command", c)
	hooks[i], _ = json.Marshal(h)
	raw, _ = json.Marshal(hooks)
	g.set("hooks", raw)
	out, _ := json.Marshal(g)
	return out
}

// Uninstall removes every hook of sightline's for an agent from its
// settings, and the groups and events it leaves empty; nothing else.
func Uninstall(settings []byte, agent string) ([]byte, []string, error) {
	root, events, err := openSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	var changed []string
	for _, ev := range append(object(nil), events...) {
		var groups []json.RawMessage
		if json.Unmarshal(ev.Val, &groups) != nil {
			continue
		}
		var kept []json.RawMessage
		removed := 0
		for _, g := range groups {
			var mg struct {
				Hooks []json.RawMessage `json:"hooks"`
			}
			var grp object
			if json.Unmarshal(g, &mg) != nil || json.Unmarshal(g, &grp) != nil {
				kept = append(kept, g)
				continue
			}
			var hooks []json.RawMessage
			for _, h := range mg.Hooks {
				var e hookEntry
				if json.Unmarshal(h, &e) == nil && ours(e.Command, agent) {
					removed++
					continue
				}
				hooks = append(hooks, h)
			}
			if len(hooks) == len(mg.Hooks) {
				kept = append(kept, g)
				continue
			}
			if len(hooks) > 0 {
				raw, _ := json.Marshal(hooks)
				grp.set("hooks", raw)
				b, _ := json.Marshal(grp)
				kept = append(kept, b)
			}
		}
		if removed == 0 {
			continue
		}
		changed = append(changed, fmt.Sprintf("removed %d sightline hook(s) from hooks.%s", removed, ev.Key))
		if len(kept) == 0 {
			events.del(ev.Key)
		} else {
			raw, _ := json.Marshal(kept)
			events.set(ev.Key, raw)
		}
	}
	out, err := closeSettings(root, events)
	return out, changed, err
}

func openSettings(settings []byte) (root, events object, err error) {
	if len(bytes.TrimSpace(settings)) > 0 {
		if err := json.Unmarshal(settings, &root); err != nil {
			return nil, nil, fmt.Errorf("the settings file is not a JSON object (%w); fix it first, nothing was changed", err)
		}
	}
	if raw, ok := root.get("hooks"); ok {
		if err := json.Unmarshal(raw, &events); err != nil {
			return nil, nil, fmt.Errorf("the settings' hooks is not an object (%w); fix it first, nothing was changed", err)
		}
	}
	return root, events, nil
}

func closeSettings(root, events object) ([]byte, error) {
	if len(events) == 0 {
		root.del("hooks")
	} else {
		raw, _ := json.Marshal(events)
		root.set("hooks", raw)
	}
	if root == nil {
		root = object{}
	}
	raw, _ := json.Marshal(root)
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
