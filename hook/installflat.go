package hook

import (
	"bytes"
	"fmt"
	"slices"
)

// CursorHooks are the hooks sightline adds to Cursor's hooks.json: the
// event and why.
var CursorHooks = []struct{ Event, Why string }{
	{"beforeReadFile", "record what the agent is given of a file"},
	{"preToolUse", "check an edit against what was read"},
	{"afterFileEdit", "record what the agent wrote"},
	{"preCompact", "expire reads when the context is compacted"},
}

type flatEntry struct {
	Command string `json:"command"`
}

// InstallFlat is Install for an agent whose events list hooks directly,
// with no matcher groups (Cursor's hooks.json: {"version": 1, "hooks":
// {EVENT: [{"command": …}]}}); a new file gets its version.
func InstallFlat(settings []byte, agent, command string, hooks []struct{ Event, Why string }) ([]byte, []string, error) {
	d, err := parseSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	var changed []string
	var newEvents []member
	for _, h := range hooks {
		var list *jvalue
		if d.hooks != nil {
			list = d.hooks.get(h.Event)
		}
		if list != nil && list.kind != '[' {
			return nil, nil, d.wrong("hooks."+h.Event, list, "a list of hooks")
		}
		present := false
		for i := range listElems(list) {
			e := &list.elems[i]
			if !isOurs(e, agent) {
				continue
			}
			present = true
			c := e.get("command")
			if next := keepOptions(c.str, command, agent); next != c.str {
				d.replace(c, d.encode(next, ""))
				changed = append(changed, fmt.Sprintf("updated hooks.%s: it runs %s", h.Event, next))
			}
		}
		if present {
			continue
		}
		if list != nil {
			d.appendItems(list, []any{flatEntry{command}})
		} else {
			newEvents = append(newEvents, member{h.Event, []any{flatEntry{command}}})
		}
		changed = append(changed, fmt.Sprintf("added hooks.%s: %s", h.Event, h.Why))
	}
	if len(changed) == 0 {
		return settings, nil, nil
	}
	var top []member
	if d.root.get("version") == nil {
		top = append(top, member{"version", 1})
	}
	switch {
	case len(newEvents) == 0:
	case d.hooks != nil:
		d.appendMembers(d.hooks, newEvents)
	default:
		top = append(top, member{"hooks", object(newEvents)})
	}
	if len(top) > 0 {
		d.appendMembers(d.root, top)
	}
	return d.apply(), changed, nil
}

func listElems(list *jvalue) []jvalue {
	if list == nil {
		return nil
	}
	return list.elems
}

// UninstallFlat removes sightline's hooks for agent from flat settings
// (InstallFlat), and the events it leaves empty; every other byte stays.
func UninstallFlat(settings []byte, agent string) ([]byte, []string, error) {
	d, err := parseSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	if d.hooks == nil {
		return settings, nil, nil
	}
	var changed []string
	dropEvents := make([]bool, len(d.hooks.members))
	for ei := range d.hooks.members {
		ev := &d.hooks.members[ei]
		list := &ev.val
		if list.kind != '[' {
			continue
		}
		drop := make([]bool, len(list.elems))
		n := 0
		for i := range list.elems {
			if isOurs(&list.elems[i], agent) {
				drop[i] = true
				n++
			}
		}
		if n == 0 {
			continue
		}
		changed = append(changed, fmt.Sprintf("removed %d sightline hook(s) from hooks.%s", n, ev.key))
		if n == len(list.elems) {
			dropEvents[ei] = true
		} else {
			d.removeItems(list, drop)
		}
	}
	if len(changed) == 0 {
		return settings, nil, nil
	}
	if slices.Contains(dropEvents, true) {
		d.removeItems(d.hooks, dropEvents)
	}
	return d.apply(), changed, nil
}

// OwnedBy reports whether a file sightline writes whole for an agent (a
// hook script, a plugin, a hooks file of its own) is still sightline's: it
// says so (OwnMark), whatever the program's name. Another file of that
// name is the user's, and left alone.
func OwnedBy(data []byte, agent string) bool {
	return bytes.Contains(data, []byte(OwnMark(agent)))
}

// OwnMark is what a file of sightline's own for an agent says.
func OwnMark(agent string) string { return "sightline's hook for " + agent }
