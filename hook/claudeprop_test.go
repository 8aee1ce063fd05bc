package hook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sightline-lsp/sightline/hook"
)

// jsonString spells s as a JSON string, each character plainly or as a
// \uXXXX escape, as the draw says.
func jsonString(t *rapid.T, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x10000 && rapid.IntRange(0, 4).Draw(t, "escape") == 0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestClaudeEditSpellingsProperty: an Edit or MultiEdit spelled any way
// JSON allows (escapes, white space, member order, a member named twice, in
// another case, missing) is judged exactly as Claude Code reads it, or
// refused: a member named twice or a required one missing is denied; a
// well-formed edit is denied exactly when a line it changes was never
// shown.
func TestClaudeEditSpellingsProperty(t *testing.T) {
	w := newWorkspace(t, nil)
	f := w.path("f.txt")
	check := 0
	rapid.Check(t, func(rt *rapid.T) {
		check++
		session := fmt.Sprintf("prop%d", check)
		n := rapid.IntRange(1, 8).Draw(rt, "lines")
		eol := rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(rt, "eol")
		var ls []string
		for i := 1; i <= n; i++ {
			ls = append(ls, fmt.Sprintf("line%d \u201cq\u201d", i))
		}
		w.write("f.txt", strings.Join(ls, eol)+eol)
		// What was shown: some lines, through a Grep's numbered output.
		read := map[int]bool{}
		var grep []string
		for i := 1; i <= n; i++ {
			if rapid.Bool().Draw(rt, "read") {
				read[i] = true
				grep = append(grep, fmt.Sprintf("%s:%d:%s", f, i, ls[i-1]))
			}
		}
		if len(grep) > 0 {
			w.event("Grep", map[string]any{"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Grep",
				"tool_input":    map[string]any{"pattern": "line", "path": w.root, "output_mode": "content", "-n": true},
				"tool_response": map[string]any{"mode": "content", "content": strings.Join(grep, "\n"), "numLines": len(grep)}}, hook.Options{})
		}
		// Edits of whole runs of lines, disjoint, in order; an old_string
		// may spell the file's curly quotes straight.
		type step struct {
			old, new string
			from, to int
		}
		var steps []step
		for at := 1; at <= n && len(steps) < 3; {
			from := rapid.IntRange(at, n).Draw(rt, "from")
			to := rapid.IntRange(from, min(n, from+2)).Draw(rt, "to")
			old := strings.Join(ls[from-1:to], "\n")
			if rapid.Bool().Draw(rt, "with its line break") {
				old += "\n"
			}
			if rapid.Bool().Draw(rt, "straight quotes") {
				old = strings.NewReplacer("\u201c", `"`, "\u201d", `"`).Replace(old)
			}
			steps = append(steps, step{old, rapid.SampledFrom([]string{"X", "Y\nZ", "W\n"}).Draw(rt, "new"), from, to})
			at = to + 1
			if rapid.Bool().Draw(rt, "stop") {
				break
			}
		}
		multi := len(steps) > 1 || rapid.Bool().Draw(rt, "MultiEdit")
		ws := func() string { return rapid.SampledFrom([]string{"", " ", "\n", "\t "}).Draw(rt, "ws") }
		// members spells an object; a member may be named twice (another
		// value), in another case, or left out.
		var duplicated, missing, recased bool
		members := func(kv [][2]string) string {
			var parts []string
			for _, m := range kv {
				switch rapid.IntRange(0, 19).Draw(rt, "variant") {
				case 0:
					duplicated = true
					parts = append(parts, jsonString(rt, m[0])+":"+jsonString(rt, "l1"))
				case 1:
					missing = true
					continue
				case 2:
					recased = true
					parts = append(parts, jsonString(rt, strings.ToUpper(m[0][:1])+m[0][1:])+":"+m[1])
				}
				parts = append(parts, ws()+jsonString(rt, m[0])+ws()+":"+ws()+m[1]+ws())
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
		var input string
		if multi {
			var edits []string
			for _, s := range steps {
				edits = append(edits, members([][2]string{{"old_string", jsonString(rt, s.old)}, {"new_string", jsonString(rt, s.new)}}))
			}
			input = members([][2]string{{"file_path", jsonString(rt, f)}, {"edits", "[" + strings.Join(edits, ",") + "]"}})
		} else {
			input = members([][2]string{{"file_path", jsonString(rt, f)}, {"old_string", jsonString(rt, steps[0].old)}, {"new_string", jsonString(rt, steps[0].new)}})
		}
		tool := "Edit"
		if multi {
			tool = "MultiEdit"
		}
		cwd, _ := json.Marshal(w.root)
		raw := fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PreToolUse","cwd":%s,"tool_name":%q,"tool_input":%s}`, session, cwd, tool, input)

		b := w.router()
		var a hook.Answer
		if ev, err := hook.ParseClaude([]byte(raw)); err != nil {
			a = hook.Unreadable(context.Background(), b, "claude", []byte(raw), err.Error())
		} else {
			a = hook.Claude(context.Background(), b, ev, hook.Options{Root: w.root})
		}
		b.Close(context.Background())

		var changed []int
		for _, s := range steps {
			for l := s.from; l <= s.to; l++ {
				changed = append(changed, l)
			}
		}
		unread := slices.ContainsFunc(changed, func(l int) bool { return !read[l] })
		switch {
		case duplicated || missing:
			if !denied(a) {
				rt.Fatalf("%s: not denied", raw)
			}
		case recased:
			// Claude Code refuses a member it does not know: nothing
			// changes, whatever sightline says.
		case denied(a) != unread:
			rt.Fatalf("%s: read %v, changes %v: denied %v: %s", raw, read, changed, denied(a), a.Stdout)
		}
	})
}
