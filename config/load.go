package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/sightline-lsp/sightline/policy"
)

// MaxFileSize bounds a configuration file: a larger one is not a
// configuration anyone wrote, and is not read into memory.
const MaxFileSize = 1 << 20

// Problem is one thing wrong with a layer of the configuration: a key
// refused (it keeps the value of the layers below), a key unknown, or a
// source whose path policy cannot be read. The last closes the workspace:
// sightline serves nothing it cannot judge (Config.Closed).
type Problem struct {
	// Source is the file (its path), or the editor's settings.
	Source string
	// Key is the key refused, dotted ("policy.deny"); "" for the source as
	// a whole.
	Key string
	// What says what is wrong and what is valid.
	What string
	// Policy: the path policy cannot be read from this source.
	Policy bool
}

// String is the warning every answer carries while the problem lasts.
func (p Problem) String() string {
	if p.Policy {
		return fmt.Sprintf("configuration %s: %s. The path policy cannot be read, so sightline refuses every read and write in this workspace until this is fixed.", p.Source, p.What)
	}
	return fmt.Sprintf("configuration %s: %s; the key is ignored, the other keys apply.", p.Source, p.What)
}

// Closed is the first problem that keeps the path policy from being read,
// if any: while there is one, no path of the workspace is served.
func (c Config) Closed() (Problem, bool) {
	for _, p := range c.Problems {
		if p.Policy {
			return p, true
		}
	}
	return Problem{}, false
}

// sortProblems puts the policy's problems first: they are why nothing is
// served.
func (c *Config) sortProblems() {
	slices.SortStableFunc(c.Problems, func(a, b Problem) int {
		switch {
		case a.Policy && !b.Policy:
			return -1
		case b.Policy && !a.Policy:
			return 1
		}
		return 0
	})
}

// layer is where a configuration's keys come from, which decides what its
// policy can do.
type layer int

const (
	userLayer   layer = iota // the user's own file: sets the policy
	repoLayer                // the workspace's file: adds deny and sensitive globs only
	editorLayer              // the editor's settings: the user's, like userLayer
)

// readFile reads a configuration file. Absent, it is no layer (ok false,
// no problem). Anything else that keeps it from being read (permission, a
// folder, a FIFO, a size no configuration has, and for the workspace's
// file a symbolic link) is a problem of its policy: the rules it holds are
// unknown, so none is assumed away.
func (c *Config) readFile(path string, repo bool) (data []byte, ok bool) {
	closed := func(what string, a ...any) ([]byte, bool) {
		c.Problems = append(c.Problems, Problem{Source: path, What: fmt.Sprintf(what, a...), Policy: true})
		return nil, false
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, false // no such file (a file where a folder of its path would be)
	}
	if err != nil {
		return closed("cannot be read (%v)", reason(err))
	}
	if repo && fi.Mode()&fs.ModeSymlink != 0 {
		// The workspace's files may be the agent's: a link would make any
		// file of the user's (outside the workspace too) the policy, and
		// its bytes the text of this warning.
		return closed("is a symbolic link; the workspace's configuration is read only from a regular file: replace the link with the file")
	}
	f, err := openFile(path, repo)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		return closed("cannot be read (%v): make it readable by this user, or remove it", reason(err))
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return closed("cannot be read (%v)", err)
	case st.IsDir():
		return closed("is a folder, not a file: remove it or put the configuration in its place")
	case !st.Mode().IsRegular():
		return closed("is not a regular file (%s): replace it with a file", st.Mode().Type())
	case repo && !os.SameFile(fi, st):
		return closed("was replaced while it was read: call again")
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return closed("cannot be read (%v)", err)
	}
	if len(data) > MaxFileSize {
		return closed("is larger than %d bytes, more than any configuration: it was not read", MaxFileSize)
	}
	return data, true
}

// reason is an error of the file system without the path the message
// names already.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// applyFile overlays a file's keys.
func (c *Config) applyFile(src string, data []byte, l layer) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // an editor's byte-order mark
	if len(bytes.TrimSpace(data)) == 0 {
		return // an empty file sets nothing (it may only mark the root)
	}
	ms, err := members(data)
	if err != nil {
		c.Problems = append(c.Problems, Problem{Source: src, What: err.Error(), Policy: true})
		return
	}
	c.applyMembers(src, ms, l)
}

// ApplyEditor overlays the editor's settings (initializationOptions, the
// "sightline" section of workspace/configuration, didChangeConfiguration):
// the bare object or one nested under "sightline". Like a file, each valid
// key is applied and each invalid one recorded in Problems; null or an
// empty list (an empty Lua table) sets nothing.
func (c *Config) ApplyEditor(src string, raw []byte) {
	if emptySettings(raw) {
		return
	}
	ms, err := members(raw)
	if err != nil {
		c.Problems = append(c.Problems, Problem{Source: src, What: err.Error(), Policy: true})
		return
	}
	for _, m := range ms {
		if m.name != "sightline" {
			continue
		}
		if emptySettings(m.value) {
			return
		}
		if ms, err = members(m.value); err != nil {
			c.Problems = append(c.Problems, Problem{Source: src, Key: "sightline", What: err.Error(), Policy: true})
			return
		}
		break
	}
	c.applyMembers(src, ms, editorLayer)
	c.sortProblems()
}

func emptySettings(raw []byte) bool {
	t := string(bytes.TrimSpace(raw))
	return t == "" || t == "null" || (strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && strings.TrimSpace(t[1:len(t)-1]) == "")
}

// member is one member of a JSON object, as written.
type member struct {
	name  string
	value jsontext.Value
}

// members reads a JSON object's members in order. A name given twice is
// kept twice (the caller names it); invalid UTF-8, invalid JSON and
// anything after the object are errors, said with their line and column.
func members(data []byte) ([]member, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	where := func(err error) error {
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			line, col := position(data, se.ByteOffset)
			return fmt.Errorf("is not valid JSON (line %d, column %d: %v): fix it as JSON, without comments or trailing commas", line, col, se.Err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return errors.New("is not valid JSON (it ends before its object does)")
		}
		return fmt.Errorf("is not valid JSON (%v)", err)
	}
	if k := dec.PeekKind(); k != '{' {
		if k == 0 {
			_, err := dec.ReadToken()
			return nil, where(err)
		}
		return nil, fmt.Errorf("must be a JSON object, such as {\"guard\": \"enforce\"}, not %s", kindName(k))
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, where(err)
	}
	var out []member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, where(err)
		}
		name := tok.String() // before the next read voids the token
		v, err := dec.ReadValue()
		if err != nil {
			return nil, where(err)
		}
		out = append(out, member{name: name, value: v.Clone()})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, where(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more JSON after the object")
		}
		return nil, where(err)
	}
	return out, nil
}

// position is the line and column (in characters) of a byte offset.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't':
		return "true"
	case 'f':
		return "false"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "a list"
	}
	return "nothing"
}

// shown is a value as a refusal names it: a string quoted and cut short,
// any other value by its kind.
func shown(v jsontext.Value) string {
	switch v.Kind() {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			if utf8.RuneCountInString(s) > 40 {
				s = string([]rune(s)[:40]) + "…"
			}
			return fmt.Sprintf("the string %q", s)
		}
	case '0':
		if len(v) <= 24 {
			return string(v)
		}
	}
	return kindName(v.Kind())
}

// leaf is a key that holds a value.
type leaf struct {
	want  string            // what a valid value is, for a refusal
	field func(*Config) any // the field it sets
}

var (
	globs  = `a list of globs, such as ["secrets/**"]`
	leaves = map[string]leaf{
		"guard":              {`"enforce", "warn" or "off"`, func(c *Config) any { return &c.Guard }},
		"autoExpand":         {"true or false", func(c *Config) any { return &c.AutoExpand }},
		"readBudget":         {"a whole number of characters, at least 200", func(c *Config) any { return &c.ReadBudget }},
		"extract":            {`"regex" or "treesitter"`, func(c *Config) any { return &c.Extract }},
		"applyVia":           {`"auto", "client" or "disk"`, func(c *Config) any { return &c.ApplyVia }},
		"applyTimeoutMs":     {"a whole number of milliseconds, 50 to 600000", func(c *Config) any { return &c.ApplyTimeoutMs }},
		"diagnostics.unread": {"true or false", func(c *Config) any { return &c.Diagnostics.Unread }},
		"diagnostics.stale":  {"true or false", func(c *Config) any { return &c.Diagnostics.Stale }},
		"policy.allow":       {globs, func(c *Config) any { return &c.Policy.Allow }},
		"policy.deny":        {globs, func(c *Config) any { return &c.Policy.Deny }},
		"policy.sensitive":   {globs, func(c *Config) any { return &c.Policy.Sensitive }},
		"audit.maxEntries":   {"a whole number, 0 or more", func(c *Config) any { return &c.Audit.MaxEntries }},
		"audit.maxAgeDays":   {"a whole number, 0 or more", func(c *Config) any { return &c.Audit.MaxAgeDays }},
		"history.maxBytes":   {"a whole number of bytes, 0 or more", func(c *Config) any { return &c.History.MaxBytes }},
		"session":            {"a session name (a string)", func(c *Config) any { return &c.Session }},
		"followSession":      {"true or false", func(c *Config) any { return &c.FollowSession }},
		"encodings":          {`a list of encoding names, such as ["windows-1252"]`, func(c *Config) any { return &c.Encodings }},
	}
	// objects are the keys that hold objects of keys.
	objects = map[string]bool{"diagnostics": true, "policy": true, "audit": true, "history": true}
)

// known are the keys of an object ("" for the top level).
func known(prefix string) []string {
	var out []string
	seen := map[string]bool{}
	for k := range leaves {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		name, _, _ := strings.Cut(k[len(prefix):], ".")
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// applyMembers overlays an object's members: each valid key is applied,
// each invalid one recorded and its value kept. A problem with the policy
// leaves the policy unread: the whole of it, not the rules that happened
// to be valid, since a rule dropped may be the one that denied.
func (c *Config) applyMembers(src string, ms []member, l layer) {
	for _, m := range c.unique(src, "", ms) {
		switch {
		case m.name == "policy":
			c.applyPolicy(src, m.value, l)
		case objects[m.name]:
			c.applyObject(src, m.name, m.value)
		default:
			c.applyLeaf(src, m.name, m.value)
		}
	}
}

// unique returns the members named once and known, recording the others.
func (c *Config) unique(src, prefix string, ms []member) []member {
	count := map[string]int{}
	for _, m := range ms {
		count[m.name]++
	}
	var out []member
	for _, m := range ms {
		key := prefix + m.name
		switch {
		case count[m.name] > 1:
			c.Problems = append(c.Problems, Problem{Source: src, Key: key, Policy: isPolicy(key),
				What: fmt.Sprintf("%q is given %d times; which one counts is unclear, so none does: keep one", key, count[m.name])})
			count[m.name] = -1 // said once
		case count[m.name] < 0:
		case leaves[key].field == nil && !objects[key]:
			c.Problems = append(c.Problems, unknown(src, prefix, m.name))
		default:
			out = append(out, m)
		}
	}
	return out
}

func isPolicy(key string) bool { return key == "policy" || strings.HasPrefix(key, "policy.") }

// unknown is the problem of an unknown key, with the known key it most
// likely meant. One that looks meant for the policy is a problem of the
// policy: its rules were meant to hold.
func unknown(src, prefix, name string) Problem {
	key := prefix + name
	best, dist := "", 3
	for _, k := range known(prefix) {
		if d := distance(strings.ToLower(name), strings.ToLower(k)); d < dist {
			best, dist = prefix+k, d
		}
	}
	if best == "" && prefix == "" {
		// A policy member written at the top level.
		for _, k := range known("policy.") {
			if strings.EqualFold(name, k) {
				best = "policy." + k
			}
		}
	}
	p := Problem{Source: src, Key: key, What: fmt.Sprintf("unknown key %q", key), Policy: isPolicy(key) || isPolicy(best)}
	if best != "" {
		p.What += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return p
}

// distance is the edit distance of two names (insertions, deletions,
// substitutions and swaps of neighbours: "gaurd" is one from "guard").
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// applyObject overlays the members of an object key (diagnostics, audit,
// history), each on its own.
func (c *Config) applyObject(src, key string, v jsontext.Value) {
	if v.Kind() == 'n' {
		return // null: not set
	}
	if v.Kind() != '{' {
		c.Problems = append(c.Problems, Problem{Source: src, Key: key, What: fmt.Sprintf("%q must be an object of keys (%s), not %s", key, strings.Join(known(key+"."), ", "), shown(v))})
		return
	}
	ms, err := members(v)
	if err != nil {
		c.Problems = append(c.Problems, Problem{Source: src, Key: key, What: fmt.Sprintf("%q %v", key, err)})
		return
	}
	for _, m := range c.unique(src, key+".", ms) {
		c.applyLeaf(src, key+"."+m.name, m.value)
	}
}

// applyLeaf sets one key if its value is of its type and valid.
func (c *Config) applyLeaf(src, key string, v jsontext.Value) {
	if err := c.setLeaf(key, v); err != nil {
		c.Problems = append(c.Problems, Problem{Source: src, Key: key, What: err.Error()})
	}
}

func (c *Config) setLeaf(key string, v jsontext.Value) error {
	if v.Kind() == 'n' {
		return nil // null: not set, as an editor sends a setting left empty
	}
	l := leaves[key]
	next := *c
	f := l.field(&next)
	// A fresh value: the copy shares its slices with c.
	reflect.ValueOf(f).Elem().SetZero()
	if err := json.Unmarshal(v, f); err != nil {
		return fmt.Errorf("%q must be %s, not %s", key, l.want, shown(v))
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("%q is refused: %w", key, err)
	}
	*c = next
	return nil
}

// applyPolicy overlays the policy, whole or not at all: any problem with it
// is a problem of the policy (Closed). The workspace's file only adds deny
// and sensitive globs (RepoPolicy).
func (c *Config) applyPolicy(src string, v jsontext.Value, l layer) {
	if v.Kind() == 'n' {
		return
	}
	fail := func(key, what string, a ...any) {
		c.Problems = append(c.Problems, Problem{Source: src, Key: key, What: fmt.Sprintf(what, a...), Policy: true})
	}
	if v.Kind() != '{' {
		fail("policy", `"policy" must be an object such as {"deny": ["secrets/**"]}, not %s`, shown(v))
		return
	}
	ms, err := members(v)
	if err != nil {
		fail("policy", `"policy" %v`, err)
		return
	}
	before := len(c.Problems)
	ms = c.unique(src, "policy.", ms)
	if len(c.Problems) > before {
		return // unique recorded them as the policy's
	}
	next := *c
	var ignored []string
	for _, m := range ms {
		key := "policy." + m.name
		if m.value.Kind() == 'n' {
			continue
		}
		var g []string
		if err := json.Unmarshal(m.value, &g); err != nil {
			fail(key, "%q must be %s, not %s", key, globs, shown(m.value))
			return
		}
		if err := policy.Validate(g); err != nil {
			fail(key, "%q holds a glob that does not compile (%v)", key, err)
			return
		}
		switch {
		case l != repoLayer:
			*leaves[key].field(&next).(*[]string) = g
		case m.name == "deny":
			next.RepoPolicy.Deny = append(append([]string(nil), next.RepoPolicy.Deny...), g...)
		case m.name == "sensitive":
			next.RepoPolicy.Sensitive = append(append([]string(nil), next.RepoPolicy.Sensitive...), g...)
		default:
			ignored = append(ignored, key)
		}
	}
	*c = next
	for _, key := range ignored {
		c.Problems = append(c.Problems, Problem{Source: src, Key: key, What: fmt.Sprintf("%q has no effect in the workspace's file, which can only add deny and sensitive globs (allow rules belong in the user's file, %s)", key, UserFile())})
	}
}
