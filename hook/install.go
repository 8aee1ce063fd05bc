package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ClaudeHooks are the hooks sightline adds to Claude Code's settings: the
// event, its matcher, and why.
var ClaudeHooks = []struct{ Event, Matcher, Why string }{
	{"PreToolUse", "Edit|MultiEdit|Write", "check an edit against what was read"},
	{"PostToolUse", "Read|Grep|Edit|MultiEdit|Write", "record what was read and written"},
	// A group of its own: an installation of the others gets it added,
	// not a second group of them.
	{"PostToolUse", "Bash", "record what shell reads showed"},
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

// Groups are hooks as the "hooks" object of an agent's settings holds them
// (event -> matcher groups), each running command: what Install adds to a
// settings file, for settings given another way (an ACP adapter's).
func Groups(command string, hooks []struct{ Event, Matcher, Why string }) map[string][]any {
	out := map[string][]any{}
	for _, h := range hooks {
		out[h.Event] = append(out[h.Event], matcherGroup{Matcher: h.Matcher, Hooks: []hookEntry{{Type: "command", Command: command, Timeout: 30}}})
	}
	return out
}

// GeminiHooks are the hooks sightline adds to Gemini CLI's settings.
var GeminiHooks = []struct{ Event, Matcher, Why string }{
	{"BeforeTool", "^(replace|write_file)$", "check an edit against what was read"},
	{"AfterTool", "^(read_file|read_many_files|grep_search|search_file_content|run_shell_command|replace|write_file)$", "record what was read and written"},
	{"BeforeModel", "", "expire reads once the context was compressed"},
	{"PreCompress", "manual", "expire reads when /compress compresses the context"},
}

// Install adds sightline's hooks (hooks: event, matcher) running command to
// an agent's settings (JSON; empty: none yet). The settings' bytes are kept
// as they were but for what is added or updated, which follows the file's
// layout; a hook of sightline's already there keeps its options and its
// other fields (installed from another path, it runs command now). It
// returns the new settings and what changed, one line each; nothing when
// the hooks are there already.
func Install(settings []byte, agent, command string, hooks []struct{ Event, Matcher, Why string }) ([]byte, []string, error) {
	return InstallTimeout(settings, agent, command, hooks, 30)
}

// InstallTimeout is Install for an agent whose hooks' timeout is timeout in
// its own unit (Claude Code's and Codex's seconds, Gemini CLI's
// milliseconds).
func InstallTimeout(settings []byte, agent, command string, hooks []struct{ Event, Matcher, Why string }, timeout int) ([]byte, []string, error) {
	d, err := parseSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	var changed []string
	var newEvents []member        // events the settings do not have yet
	groups := map[*jvalue][]any{} // groups to add to an event's list
	var lists []*jvalue           // those lists, in order
	for _, h := range hooks {
		var list *jvalue
		if d.hooks != nil {
			list = d.hooks.get(h.Event)
		}
		if list != nil && list.kind != '[' {
			return nil, nil, d.wrong("hooks."+h.Event, list, "a list of matcher groups")
		}
		present, updated := false, ""
		for _, e := range ourEntries(list, agent, h.Matcher) {
			present = true
			c := e.get("command")
			if next := keepOptions(c.str, command, agent); next != c.str {
				// Installed from another path (the program moved): the hook
				// runs this one now, with the options the user gave it.
				d.replace(c, d.encode(next, ""))
				updated = next
			}
		}
		if updated != "" {
			changed = append(changed, fmt.Sprintf("updated hooks.%s%s: it runs %s", h.Event, matcherNote(h.Matcher), updated))
		}
		if present {
			continue
		}
		g := matcherGroup{Matcher: h.Matcher, Hooks: []hookEntry{{Type: "command", Command: command, Timeout: timeout}}}
		if list != nil {
			if groups[list] == nil {
				lists = append(lists, list)
			}
			groups[list] = append(groups[list], g)
		} else if i := slices.IndexFunc(newEvents, func(m member) bool { return m.Key == h.Event }); i >= 0 {
			newEvents[i].Val = append(newEvents[i].Val.([]any), g)
		} else {
			newEvents = append(newEvents, member{h.Event, []any{g}})
		}
		changed = append(changed, fmt.Sprintf("added hooks.%s%s: %s", h.Event, matcherNote(h.Matcher), h.Why))
	}
	for _, l := range lists {
		d.appendItems(l, groups[l])
	}
	switch {
	case len(newEvents) == 0:
	case d.hooks != nil:
		d.appendMembers(d.hooks, newEvents)
	default:
		d.appendMembers(d.root, []member{{"hooks", object(newEvents)}})
	}
	if len(changed) == 0 {
		return settings, nil, nil
	}
	return d.apply(), changed, nil
}

// Uninstall removes every hook of sightline's for an agent from its
// settings, and the groups and events it leaves empty; every other byte
// stays as it was (a removed item goes with the comma and the space that
// set it apart).
func Uninstall(settings []byte, agent string) ([]byte, []string, error) {
	d, err := parseSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	if d.hooks == nil {
		return settings, nil, nil
	}
	var changed []string
	dropEvents := make([]bool, len(d.hooks.members))
	for ei, ev := range d.hooks.members {
		list := &ev.val
		if list.kind != '[' {
			continue // not a list of groups: none of them is sightline's
		}
		removed := 0
		dropGroups := make([]bool, len(list.elems))
		for gi := range list.elems {
			g := &list.elems[gi]
			hs := g.get("hooks")
			if g.kind != '{' || hs == nil || hs.kind != '[' {
				continue
			}
			drop := make([]bool, len(hs.elems))
			n := 0
			for i := range hs.elems {
				if isOurs(&hs.elems[i], agent) {
					drop[i] = true
					n++
				}
			}
			removed += n
			switch {
			case n == 0:
			case n == len(hs.elems):
				dropGroups[gi] = true
			default:
				d.removeItems(hs, drop)
			}
		}
		if removed == 0 {
			continue
		}
		changed = append(changed, fmt.Sprintf("removed %d sightline hook(s) from hooks.%s", removed, ev.key))
		if !slices.Contains(dropGroups, false) {
			dropEvents[ei] = true
		} else {
			d.removeItems(list, dropGroups)
		}
	}
	if len(changed) == 0 {
		return settings, nil, nil
	}
	if !slices.Contains(dropEvents, false) {
		d.removeItems(d.root, memberFlags(d.root, "hooks"))
	} else {
		d.removeItems(d.hooks, dropEvents)
	}
	return d.apply(), changed, nil
}

func matcherNote(m string) string {
	if m == "" {
		return ""
	}
	return " (" + m + ")"
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

// ourEntries are sightline's hooks for agent in the event's groups whose
// matcher is matcher.
func ourEntries(list *jvalue, agent, matcher string) []*jvalue {
	if list == nil {
		return nil
	}
	var out []*jvalue
	for gi := range list.elems {
		g := &list.elems[gi]
		if g.kind != '{' {
			continue
		}
		m := g.get("matcher")
		if m == nil && matcher != "" || m != nil && (m.kind != '"' || m.str != matcher) {
			continue
		}
		hs := g.get("hooks")
		if hs == nil || hs.kind != '[' {
			continue
		}
		for i := range hs.elems {
			if isOurs(&hs.elems[i], agent) {
				out = append(out, &hs.elems[i])
			}
		}
	}
	return out
}

// isOurs reports whether a hook (a JSON object) runs sightline's hook for
// agent.
func isOurs(h *jvalue, agent string) bool {
	if h.kind != '{' {
		return false
	}
	c := h.get("command")
	return c != nil && c.kind == '"' && ours(c.str, agent) >= 0
}

// ours finds sightline's hook for an agent in a hook command
// ("/path/to/sightline hook claude", with or without options): the index
// of the program's word; -1 when it is not there.
func ours(command, agent string) int {
	w := shellWords(command)
	for i := 0; i+2 < len(w); i++ {
		if isSightline(w[i].val) && w[i+1].val == "hook" && w[i+2].val == agent {
			return i
		}
	}
	return -1
}

// isSightline: the program's name, whatever its folder (and its .exe on
// Windows).
func isSightline(path string) bool {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".exe") {
		base = base[:len(base)-4]
	}
	return strings.HasSuffix(base, "sightline")
}

// keepOptions is the installed hook command old made to run command: what
// the user wrote around sightline's words (options such as --keep-reads,
// an environment setting before it) is kept.
func keepOptions(old, command, agent string) string {
	w := shellWords(old)
	i := ours(old, agent)
	if i < 0 {
		return command
	}
	return old[:w[i].start] + command + old[w[i+2].end:]
}

type shellWord struct {
	start, end int // its bytes in the command, quotes included
	val        string
}

// shellWords splits a command into words as the shell does for a simple
// command (blanks apart, quotes and backslashes removed), so that a
// program's path holding spaces is one word.
func shellWords(s string) []shellWord {
	var out []shellWord
	i := 0
	for {
		for i < len(s) && strings.IndexByte(" \t\n", s[i]) >= 0 {
			i++
		}
		if i == len(s) {
			return out
		}
		w := shellWord{start: i}
		var val strings.Builder
		for i < len(s) && strings.IndexByte(" \t\n", s[i]) < 0 {
			switch c := s[i]; c {
			case '\'':
				j := strings.IndexByte(s[i+1:], '\'')
				if j < 0 {
					j = len(s) - i - 1
				}
				val.WriteString(s[i+1 : i+1+j])
				i = min(i+j+2, len(s))
			case '"':
				i++
				for i < len(s) && s[i] != '"' {
					if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`\"$`+"`", s[i+1]) >= 0 {
						i++
					}
					val.WriteByte(s[i])
					i++
				}
				i = min(i+1, len(s))
			case '\\':
				if i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			default:
				val.WriteByte(c)
				i++
			}
		}
		w.end, w.val = i, val.String()
		out = append(out, w)
	}
}

// The settings as bytes with where each value lies, and the splices that
// change them: sightline changes what it adds and nothing else, so that a
// user's file keeps its strings as written (&&, <), its layout, its
// numbers.

// jvalue is a JSON value and where it lies in the file: doc[start:end].
type jvalue struct {
	start, end int
	kind       byte // '{', '[', '"'; 0: another value
	members    []jmember
	elems      []jvalue
	str        string // a string's value
}

type jmember struct {
	key        string
	start, sep int // the key's opening quote; the end of the key
	val        jvalue
}

func (v *jvalue) index(key string) int {
	return slices.IndexFunc(v.members, func(m jmember) bool { return m.key == key })
}

func (v *jvalue) get(key string) *jvalue {
	if i := v.index(key); i >= 0 {
		return &v.members[i].val
	}
	return nil
}

// memberFlags marks the member key of an object.
func memberFlags(v *jvalue, key string) []bool {
	f := make([]bool, len(v.members))
	if i := v.index(key); i >= 0 {
		f[i] = true
	}
	return f
}

// doc is a settings file being changed.
type doc struct {
	b       []byte
	root    *jvalue
	hooks   *jvalue // root's "hooks"; nil: none
	splices []splice
	nl      string // the file's line break
	unit    string // one level of its indentation
}

type splice struct {
	start, end int
	text       string
}

// parseSettings reads settings whose every value is where the agent will
// find it: plain JSON (no comments), an object, no member twice (the agent
// would read one of them, sightline perhaps the other), a "hooks" object.
// Empty settings are a new file.
func parseSettings(b []byte) (*doc, error) {
	d := &doc{b: b, nl: "\n", unit: "  "}
	if len(bytes.TrimSpace(b)) == 0 {
		d.b = []byte("{\n}\n")
	}
	if bytes.HasPrefix(d.b, []byte("\xef\xbb\xbf")) {
		return nil, errors.New("the settings file starts with a byte order mark, which is not JSON: save it as UTF-8 without one, then run again; nothing was changed")
	}
	var v json.RawMessage // syntax only: 1e999 is JSON too
	if err := json.Unmarshal(d.b, &v); err != nil {
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil, fmt.Errorf("the settings file is not JSON (%w): fix it, then run again; nothing was changed", err)
		}
		line, col := d.lineCol(int(se.Offset) - 1)
		if bytes.HasPrefix(bytes.TrimLeft(d.b[max(se.Offset-1, 0):], " \t\r\n"), []byte("/")) {
			return nil, fmt.Errorf("the settings file has a comment at line %d, column %d: comments are not JSON, which the agent reads; remove them (or add the hooks by hand), then run again; nothing was changed", line, col)
		}
		return nil, fmt.Errorf("the settings file is not JSON: %w at line %d, column %d; fix it, then run again; nothing was changed", err, line, col)
	}
	p := &parser{b: d.b}
	root, err := p.value("the settings")
	if err != nil {
		line, _ := d.lineCol(p.dup)
		return nil, fmt.Errorf("%w (line %d): the agent reads only one of them; keep the one you mean, then run again; nothing was changed", err, line)
	}
	d.root = &root
	if root.kind != '{' {
		return nil, d.wrong("the settings", d.root, "an object ({ … })")
	}
	if h := root.get("hooks"); h != nil {
		if h.kind != '{' {
			return nil, d.wrong("hooks", h, "an object of events")
		}
		d.hooks = h
	}
	if bytes.Contains(d.b, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	// One level of indentation: the first member's, when it has a line of
	// its own.
	if len(root.members) > 0 {
		if ws := d.b[root.start+1 : root.members[0].start]; bytes.IndexByte(ws, '\n') >= 0 {
			if in := ws[bytes.LastIndexByte(ws, '\n')+1:]; len(in) > 0 {
				d.unit = string(in)
			}
		}
	}
	return d, nil
}

func (d *doc) lineCol(off int) (int, int) {
	off = min(max(off, 0), len(d.b))
	return bytes.Count(d.b[:off], []byte("\n")) + 1, off - bytes.LastIndexByte(d.b[:off], '\n')
}

// wrong is the error of a member whose type is not the agent's.
func (d *doc) wrong(name string, v *jvalue, want string) error {
	line, _ := d.lineCol(v.start)
	return fmt.Errorf("%s (line %d) should be %s, as the agent reads it; it is %s. Fix it, then run again; nothing was changed",
		name, line, want, kindName(d.b[v.start:v.end]))
}

func kindName(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// parser finds where the values of a valid JSON text lie.
type parser struct {
	b   []byte
	i   int
	dup int // where a duplicate member is
}

func (p *parser) space() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) value(path string) (jvalue, error) {
	p.space()
	v := jvalue{start: p.i, kind: p.b[p.i]}
	switch v.kind {
	case '{':
		p.i++
		p.space()
		for p.b[p.i] != '}' {
			p.space()
			m := jmember{start: p.i}
			m.key = p.string()
			m.sep = p.i
			if v.index(m.key) >= 0 {
				p.dup = m.start
				return v, fmt.Errorf("%s: the member %q appears twice", path, m.key)
			}
			p.space()
			p.i++ // :
			var err error
			if m.val, err = p.value(memberPath(path, m.key)); err != nil {
				return v, err
			}
			v.members = append(v.members, m)
			p.space()
			if p.b[p.i] == ',' {
				p.i++
			}
		}
		p.i++
	case '[':
		p.i++
		p.space()
		for p.b[p.i] != ']' {
			e, err := p.value(fmt.Sprintf("%s[%d]", path, len(v.elems)))
			if err != nil {
				return v, err
			}
			v.elems = append(v.elems, e)
			p.space()
			if p.b[p.i] == ',' {
				p.i++
				p.space()
			}
		}
		p.i++
	case '"':
		v.str = p.string()
	default:
		v.kind = 0
		for p.i < len(p.b) && strings.IndexByte(",]} \t\r\n", p.b[p.i]) < 0 {
			p.i++
		}
	}
	v.end = p.i
	return v, nil
}

func memberPath(path, key string) string {
	if path == "the settings" {
		return key
	}
	return path + "." + key
}

// string reads a string at p.i and returns its value.
func (p *parser) string() string {
	start := p.i
	for p.i++; p.b[p.i] != '"'; p.i++ {
		if p.b[p.i] == '\\' {
			p.i++
		}
	}
	p.i++
	var s string
	json.Unmarshal(p.b[start:p.i], &s) // valid: the whole text was decoded
	return s
}

// encode is a value as JSON in the file's layout: each line after the
// first starts with indent (compact when indent is "", on one line as the
// place it goes), strings as written (no \u0026 for &).
func (d *doc) encode(v any, indent string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if indent != "" {
		e.SetIndent(strings.TrimPrefix(indent, "\n"), d.unit)
	}
	e.Encode(v) // of sightline's own types: it does not fail
	s := strings.TrimSuffix(b.String(), "\n")
	if indent != "" && d.nl != "\n" {
		s = strings.ReplaceAll(s, "\n", d.nl)
	}
	return s
}

// member is a member sightline adds; object is an object of them, in
// their order.
type member struct {
	Key string
	Val any
}

type object []member

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		e.Encode(m.Key)
		b.Truncate(b.Len() - 1)
		b.WriteByte(':')
		if err := e.Encode(m.Val); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (d *doc) replace(v *jvalue, text string) {
	d.splices = append(d.splices, splice{v.start, v.end, text})
}

// appendItems adds values at the end of a list.
func (d *doc) appendItems(list *jvalue, vals []any) {
	ends := make([][2]int, len(list.elems))
	for i, e := range list.elems {
		ends[i] = [2]int{e.start, e.end}
	}
	d.appendText(list, ends, len(vals), func(i int, indent string) string { return d.encode(vals[i], indent) })
}

// appendMembers adds members at the end of an object, their key and
// value set apart as its last member's are.
func (d *doc) appendMembers(obj *jvalue, ms []member) {
	colon := ":"
	if n := len(obj.members); n > 0 {
		m := obj.members[n-1]
		colon = string(d.b[m.sep:m.val.start])
	} else if d.pretty() {
		colon = ": "
	}
	spans := make([][2]int, len(obj.members))
	for i, m := range obj.members {
		spans[i] = [2]int{m.start, m.val.end}
	}
	d.appendText(obj, spans, len(ms), func(i int, indent string) string {
		return d.encode(ms[i].Key, "") + colon + d.encode(ms[i].Val, indent)
	})
}

// pretty: the settings are laid out on lines (else on one).
func (d *doc) pretty() bool {
	return bytes.IndexByte(d.b[d.root.start:d.root.end], '\n') >= 0
}

// appendText adds n items at the end of a container whose items lie at
// spans: each set apart as the container's last one is, or, in an empty
// container, on lines one level deeper than the container's own.
func (d *doc) appendText(c *jvalue, spans [][2]int, n int, item func(i int, indent string) string) {
	var sep, closing string
	have := len(spans)
	switch {
	case have > 0:
		from := c.start + 1
		if have > 1 {
			prev := spans[have-2][1]
			from = prev + bytes.IndexByte(d.b[prev:], ',') + 1
		}
		sep = string(d.b[from:spans[have-1][0]])
	case d.pretty():
		line := d.b[bytes.LastIndexByte(d.b[:c.start], '\n')+1:]
		outer := string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
		sep, closing = d.nl+outer+d.unit, d.nl+outer
	}
	indent := ""
	if i := strings.LastIndexByte(sep, '\n'); i >= 0 {
		indent = "\n" + sep[i+1:]
	}
	var b strings.Builder
	for i := range n {
		if have > 0 || i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(sep)
		b.WriteString(item(i, indent))
	}
	if have > 0 {
		at := spans[have-1][1]
		d.splices = append(d.splices, splice{at, at, b.String()})
		return
	}
	d.splices = append(d.splices, splice{c.start + 1, c.end - 1, b.String() + closing})
}

// removeItems removes the flagged items of a list or an object, each
// with the comma and the space that set it apart: a run of items before a
// kept one goes up to the kept one; a run at the end goes from the end of
// the kept one before it.
func (d *doc) removeItems(c *jvalue, drop []bool) {
	var start, end func(int) int
	if c.kind == '{' {
		start = func(i int) int { return c.members[i].start }
		end = func(i int) int { return c.members[i].val.end }
	} else {
		start = func(i int) int { return c.elems[i].start }
		end = func(i int) int { return c.elems[i].end }
	}
	if !slices.Contains(drop, false) {
		d.splices = append(d.splices, splice{c.start + 1, c.end - 1, ""})
		return
	}
	for i := 0; i < len(drop); {
		if !drop[i] {
			i++
			continue
		}
		j := i
		for j < len(drop) && drop[j] {
			j++
		}
		if j < len(drop) {
			d.splices = append(d.splices, splice{start(i), start(j), ""})
		} else {
			d.splices = append(d.splices, splice{end(i - 1), end(j - 1), ""})
		}
		i = j
	}
}

// apply is the file with the splices made.
func (d *doc) apply() []byte {
	slices.SortStableFunc(d.splices, func(a, b splice) int { return a.start - b.start })
	var out []byte
	at := 0
	for _, s := range d.splices {
		out = append(out, d.b[at:s.start]...)
		out = append(out, s.text...)
		at = s.end
	}
	return append(out, d.b[at:]...)
}

// SettingsFile is an agent's settings file read for a change.
type SettingsFile struct {
	// Path is the file as named; Target is the file read and written, Path
	// with its links resolved: a settings file linked from a dotfiles
	// folder stays a link, and the file it names changes.
	Path, Target string
	// Data is the file's content; nil when there is no file yet.
	Data   []byte
	mode   fs.FileMode
	exists bool
}

// ReadSettings reads the settings file at path, through its links. A path
// that names no file is new settings; one that names anything but a file
// (a folder, a link to nothing) is refused.
func ReadSettings(path string) (*SettingsFile, error) {
	s := &SettingsFile{Path: path, Target: path, mode: 0o644}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		dest, _ := os.Readlink(path)
		if s.Target, err = filepath.EvalSymlinks(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s is a symbolic link to %s, which does not exist: create that file (it may be empty) or remove the link, then run again; nothing was changed", path, dest)
			}
			return nil, fmt.Errorf("following the link %s to %s: %w", path, dest, err)
		}
		if fi, err = os.Stat(s.Target); err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.name(), err)
		}
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder, where the agent reads a settings file: move it away, then run again; nothing was changed", s.name())
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): sightline changes only a file; nothing was changed", s.name(), fi.Mode().Type())
	}
	if s.Data, err = os.ReadFile(s.Target); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.name(), err)
	}
	if s.Data == nil {
		s.Data = []byte{}
	}
	s.exists, s.mode = true, fi.Mode().Perm()
	return s, nil
}

// Executable makes the file one its owner and others may run (a hook
// script), keeping the rest of its mode.
func (s *SettingsFile) Executable() { s.mode |= 0o111 }

// name is the file as the user knows it, and where its link leads.
func (s *SettingsFile) name() string {
	if s.Target != s.Path {
		return fmt.Sprintf("%s (linked from %s)", s.Target, s.Path)
	}
	return s.Path
}

// Write replaces the settings with data: a full copy written beside the
// target, with its mode, is renamed over it, so that the agent never reads
// half a file. A file its owner made read-only, or may not write, is
// refused (the rename would replace it all the same), and so is a file
// changed since it was read (the agent itself writes its settings): then
// nothing is changed.
func (s *SettingsFile) Write(data []byte) error {
	dir := filepath.Dir(s.Target)
	if s.exists {
		readOnly := s.mode&0o200 == 0
		if !readOnly {
			f, err := os.OpenFile(s.Target, os.O_WRONLY, 0) // changes nothing: no truncation
			if err != nil && !errors.Is(err, fs.ErrPermission) {
				return fmt.Errorf("opening %s: %w", s.name(), err)
			}
			if f != nil {
				f.Close()
			}
			readOnly = err != nil
		}
		if readOnly {
			return fmt.Errorf("%s is read-only (mode %04o) for you: sightline does not replace it. Make it writable (chmod u+w), or change its source if a tool generates it (--dry-run prints the new settings); nothing was changed", s.name(), s.mode)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making the folder of %s: %w", s.Path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.Target)+".sightline-*")
	if err != nil {
		return fmt.Errorf("writing beside %s: %w; nothing was changed", s.name(), err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(s.mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing beside %s: %w; nothing was changed", s.name(), err)
	}
	now, err := os.ReadFile(s.Target)
	switch {
	case s.exists && (err != nil || !bytes.Equal(now, s.Data)), !s.exists && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s changed while sightline was changing it: run again; nothing was changed", s.name())
	}
	if err := os.Rename(tmp.Name(), s.Target); err != nil {
		return fmt.Errorf("replacing %s: %w; nothing was changed", s.name(), err)
	}
	return nil
}
