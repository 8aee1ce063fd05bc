// Package patch reads the patches models and tools write — unified diffs
// (`git diff`, `diff -u`) and the V4A envelope of Codex-style apply_patch —
// into one representation, and plans their hunks exactly against a text:
// every hunk's context and removed lines must occur at exactly one place.
// It knows nothing of LSP or of the disk.
package patch

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sightline-lsp/sightline/lines"
)

// Kind says what a file patch does.
type Kind string

// The kinds of file patch.
const (
	Modify Kind = "modify"
	Add    Kind = "add"
	Delete Kind = "delete"
)

// File is the patch of one file.
type File struct {
	Kind Kind
	// Path is the file patched (the old path for a rename); NewPath is the
	// path after a rename, or "".
	Path, NewPath string
	// From is the --- name of a section (not git's) whose --- and +++ lines
	// name different files and which has hunks; Path is the +++ name. diff
	// -u of two files writes such a section as a change of the +++ file; a
	// model renaming a file it changes writes one too: which it is, the
	// files say (the caller decides).
	From  string
	Hunks []Hunk
	// Mode is the file's new git mode (0o100644, 0o100755) when the patch
	// sets one (`new mode`, `new file mode`), else 0.
	Mode uint32
	// Line is the 1-based line of the patch where this file's header begins.
	Line int
	// V4A says the hunks are the chunks of a V4A *** Update File: Plan
	// places them by the format's own rule, each at the first place its
	// lines occur after the chunk before it (and its @@ lines), never
	// refused as ambiguous.
	V4A bool
}

// Lines are the lines of a new file (Add): the new lines of its hunks in
// order, each with the line break the patch gives it ("\r\n" for a line
// that carries its CR, else "\n"); the last line has none when the patch
// says so (`\ No newline at end of file`), but keeps a CR it carries, as
// git does.
func (f File) Lines() []lines.Line {
	var ls []lines.Line
	for i, h := range f.Hunks {
		for j, c := range h.New {
			l := lines.Line{Content: c, Term: "\n"}
			if h.CR != nil && h.CR[j] {
				l.Term = "\r\n"
			}
			if i == len(f.Hunks)-1 && j == len(h.New)-1 && h.NewNoEOL {
				l.Term = strings.TrimSuffix(l.Term, "\n")
			}
			ls = append(ls, l)
		}
	}
	return ls
}

// Text is the text of a new file (Add), byte for byte as git apply writes
// it when its lines carry CRs; a patch whose lines carry none says nothing
// of the file's line breaks, and every line then ends with eol
// (lines.NewText).
func (f File) Text(eol string) string { return lines.NewText(f.Lines(), eol) }

// Hunk is one run of context, removed and added lines.
type Hunk struct {
	// Old holds the context and removed lines in order, New the context and
	// added lines: the text before and after, without terminators.
	Old, New []string
	// OldStart is the header's 1-based start line in the old file (unified
	// diffs), 0 when unknown: a hint, never a licence.
	OldStart int
	// Anchors are V4A `@@ text` lines (the text after "@@ ", as written):
	// each must occur, in order, before the hunk (they narrow where it may
	// match).
	Anchors []string
	// CR marks the new side's lines that end in "\r\n" in the patch (a
	// CRLF file's lines), nil when none does. A line's CR belongs to its
	// line break, not to its content: a new file takes its line breaks
	// from the patch (File.Text); an existing file keeps its own.
	CR []bool
	// OldCR marks the old side's lines (context and removed) that end in
	// "\r\n" in the patch, nil when none does. A hunk whose old lines end
	// as the file's lines they match is byte-exact: its new lines keep their
	// own line breaks (CR), so a change of line break alone is a change.
	OldCR []bool
	// OldNoEOL and NewNoEOL say the old or new side's last line has no line
	// terminator (`\ No newline at end of file`).
	OldNoEOL, NewNoEOL bool
	// EOF says the hunk must end at the end of the file (V4A `*** End of File`).
	EOF bool
	// Line is the 1-based line of the patch where the hunk begins.
	Line int
}

// Error is a patch that cannot be read, naming the line of the patch.
type Error struct {
	Line int
	Msg  string
	// Binary says the patch changes a binary file (GIT binary patch), which
	// is not a text patch at all.
	Binary bool
	// Releases says Codex releases read this patch differently
	// (ParseCodex): the current one may apply it.
	Releases bool
}

func (e *Error) Error() string { return fmt.Sprintf("patch line %d: %s", e.Line, e.Msg) }

// Parse reads a whole patch.
func Parse(text string) ([]File, error) {
	p := NewParser()
	files := p.Write([]byte(text))
	rest, err := p.Close()
	if err != nil {
		return nil, err
	}
	return append(files, rest...), nil
}

// Parser reads a patch as it streams: Write returns the files completed so
// far (a file is complete when the next one begins), Close the rest.
type Parser struct {
	pending []byte
	line    int
	format  string // "", "unified", "v4a"
	cur     *File
	hunk    *Hunk
	// unified hunk bookkeeping: lines still expected on each side
	oldLeft, newLeft int
	lastSide         byte // the side of the last hunk line: ' ', '-', '+'
	inV4A, endedV4A  bool
	// loose says the unified hunk being read has no line counts (aider's
	// `@@ ... @@`): it runs until a line that is no hunk line. held is a
	// `--- ` line of it, which is a removed line or, when `+++ ` follows,
	// the next file's header.
	loose bool
	held  string
	// sureNew says the file being read is new beyond its `--- /dev/null`:
	// git's "new file mode", or a hunk with line counts. Without it, a
	// /dev/null file whose count-less hunks have old lines is a change of
	// the file (aider's models write /dev/null for any file).
	sureNew bool
	// blankTail counts the empty lines (not even the space of a context
	// line) that end the hunk being read: a model's blank line before
	// `*** End Patch` or after a count-less hunk is no line of the file.
	blankTail int
	err       error
	// cr says the line being read ended in "\r\n": the CR is taken off
	// every line (headers and markers read the same either way) and kept
	// for the new lines of hunks (Hunk.CR).
	cr bool
	// headed says the file being read has had its `--- ` line: another
	// one begins the next file, whether this one had hunks or not.
	headed bool
	// other is the `+++` name of a section (not git's) whose `---` names
	// another file: without hunks the section renames its file to it;
	// with hunks it is the file changed or the new name (File.From).
	other string
	// the names of git's `diff --git a/x b/y` line
	gitOld, gitNew string
	files          int // files returned so far
}

// NewParser starts a patch.
func NewParser() *Parser { return &Parser{} }

// Write feeds patch text.
func (p *Parser) Write(chunk []byte) []File {
	p.pending = append(p.pending, chunk...)
	var done []File
	rest := p.pending
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		l := string(rest[:i])
		rest = rest[i+1:]
		done = append(done, p.feedLine(l)...)
	}
	// Keep only the unfinished line, in a buffer of its own.
	p.pending = append([]byte(nil), rest...)
	p.files += len(done)
	return done
}

// Close ends the patch and returns the files not yet returned, or the first
// error met.
func (p *Parser) Close() ([]File, error) {
	var done []File
	if len(p.pending) > 0 {
		done = append(done, p.feedLine(string(p.pending))...)
		p.pending = nil
	}
	if p.held != "" && p.err == nil {
		p.hunkLineLoose(p.held, false)
		p.held = ""
	}
	if p.err == nil && p.inV4A && !p.endedV4A {
		p.fail(p.line, "the patch ends without *** End Patch")
	}
	if p.err == nil && p.format == "unified" && p.hunk != nil && (p.oldLeft > 0 || p.newLeft > 0) {
		p.fail(p.hunk.Line, fmt.Sprintf("the hunk ends early: %d old and %d new lines missing", p.oldLeft, p.newLeft))
	}
	done = append(done, p.finish()...)
	if p.err != nil {
		return nil, p.err
	}
	if p.format == "" {
		return nil, &Error{Line: max(p.line, 1), Msg: "no patch found: expected a unified diff (--- a/file, +++ b/file, @@ hunks) or *** Begin Patch"}
	}
	if p.files+len(done) == 0 {
		return nil, &Error{Line: max(p.line, 1), Msg: "the patch changes no file: there is nothing to apply"}
	}
	return done, nil
}

func (p *Parser) fail(line int, msg string) {
	if p.err == nil {
		p.err = &Error{Line: line, Msg: msg}
	}
}

// finish closes the current file and returns it.
func (p *Parser) finish() []File {
	p.closeHunk()
	if p.cur == nil {
		return nil
	}
	f := *p.cur
	sureNew, other := p.sureNew, p.other
	p.cur, p.sureNew, p.headed, p.other = nil, false, false, ""
	if p.err != nil {
		return nil
	}
	if other != "" && f.Kind == Modify {
		if len(f.Hunks) == 0 {
			// Two names and no line changed: a rename (of an empty file, or
			// one whose text stays).
			f.NewPath = other
		} else {
			f.From, f.Path = f.Path, other
		}
	}
	if f.Path == "" {
		p.fail(f.Line, "a file section without a file name: a --- /dev/null line needs the +++ line that names the file")
		return nil
	}
	if f.Kind == Modify && len(f.Hunks) == 0 && f.NewPath == "" && f.Mode == 0 {
		p.fail(f.Line, fmt.Sprintf("the patch of %s has no hunks", f.Path))
		return nil
	}
	if f.Kind == Add && !sureNew && p.format == "unified" && slices.ContainsFunc(f.Hunks, func(h Hunk) bool { return len(h.Old) > 0 }) {
		// The old lines must match the file exactly, as any hunk's: the
		// header alone cannot make this a create over the file.
		f.Kind = Modify
	}
	if f.Kind == Add {
		for _, h := range f.Hunks {
			if len(h.Old) > 0 {
				p.fail(h.Line, fmt.Sprintf("the patch adds %s as a new file (--- /dev/null), yet its hunk has context or removed lines: send the change of the existing file (--- %s) or the new file's lines alone", f.Path, f.Path))
				return nil
			}
		}
	}
	return []File{f}
}

func (p *Parser) closeHunk() {
	if p.hunk != nil && p.cur != nil {
		h := *p.hunk
		if k := p.blankTail; k > 0 && !h.EOF && k <= len(h.Old) && k <= len(h.New) {
			h.Old, h.New = h.Old[:len(h.Old)-k], h.New[:len(h.New)-k]
			if h.CR != nil {
				h.CR = h.CR[:len(h.New)]
			}
			if h.OldCR != nil {
				h.OldCR = h.OldCR[:len(h.Old)]
			}
		}
		if len(h.Old) > 0 || len(h.New) > 0 {
			p.cur.Hunks = append(p.cur.Hunks, h)
		}
	}
	p.hunk, p.blankTail, p.loose = nil, 0, false
}

// feedLine reads one line of the patch, its "\n" taken off.
func (p *Parser) feedLine(l string) []File {
	var cr bool
	l, cr = strings.CutSuffix(l, "\r")
	p.cr = cr
	return p.feed(l)
}

// addOld adds a line to the old side of the hunk being read.
func (p *Parser) addOld(l string) { addLine(&p.hunk.Old, &p.hunk.OldCR, l, p.cr) }

// addNew adds a line to the new side of the hunk being read.
func (p *Parser) addNew(l string) { addLine(&p.hunk.New, &p.hunk.CR, l, p.cr) }

// addLine appends l to one side of a hunk and whether it ended with a
// carriage return to its flags, which exist once a line has had one.
func addLine(side *[]string, crs *[]bool, l string, cr bool) {
	if cr && *crs == nil {
		*crs = make([]bool, len(*side), cap(*side))
	}
	*side = append(*side, l)
	if *crs != nil {
		*crs = append(*crs, cr)
	}
}

func (p *Parser) feed(l string) []File {
	p.line++
	if p.err != nil {
		return nil
	}
	if p.format == "v4a" || p.format == "" && strings.HasPrefix(strings.TrimSpace(l), "*** Begin Patch") {
		return p.feedV4A(l)
	}
	return p.feedUnified(l)
}

// feedV4A reads one line of the V4A envelope. Its markers may carry spaces
// around them, as models write them and Codex accepts.
func (p *Parser) feedV4A(l string) []File {
	t := strings.TrimSpace(l)
	switch {
	case strings.HasPrefix(t, "*** Begin Patch"):
		if p.inV4A {
			p.fail(p.line, "*** Begin Patch inside a patch")
		}
		p.format, p.inV4A = "v4a", true
		return nil
	case !p.inV4A || p.endedV4A:
		if strings.TrimSpace(l) != "" {
			// Text after the envelope is not part of the patch.
			return nil
		}
		return nil
	case strings.HasPrefix(t, "*** End Patch"):
		p.endedV4A = true
		return p.finish()
	case strings.HasPrefix(t, "*** Update File: "), strings.HasPrefix(t, "*** Add File: "), strings.HasPrefix(t, "*** Delete File: "):
		done := p.finish()
		head, path, _ := strings.Cut(t, ": ")
		f := &File{Path: strings.TrimSpace(path), Line: p.line, V4A: true}
		switch head {
		case "*** Update File":
			f.Kind = Modify
		case "*** Add File":
			f.Kind = Add
			p.hunk = &Hunk{Line: p.line + 1}
		case "*** Delete File":
			f.Kind = Delete
		}
		if f.Path == "" {
			p.fail(p.line, "a file header without a path")
		}
		p.cur = f
		return done
	case strings.HasPrefix(t, "*** Move to: "):
		if p.cur == nil || p.cur.Kind != Modify {
			p.fail(p.line, "*** Move to: outside an *** Update File")
			return nil
		}
		p.cur.NewPath = strings.TrimSpace(strings.TrimPrefix(t, "*** Move to: "))
		return nil
	case strings.HasPrefix(t, "*** End of File"):
		if p.hunk == nil {
			p.fail(p.line, "*** End of File outside a hunk")
			return nil
		}
		// The marker ends its hunk: the lines after it start another.
		p.hunk.EOF = true
		if p.cur != nil && p.cur.Kind == Modify {
			p.closeHunk()
		}
		return nil
	}
	if p.cur == nil {
		p.fail(p.line, fmt.Sprintf("expected *** Update File:, *** Add File: or *** Delete File:, got %q", clip(l)))
		return nil
	}
	switch p.cur.Kind {
	case Delete:
		if strings.TrimSpace(l) != "" {
			p.fail(p.line, "a deleted file takes no lines")
		}
		return nil
	case Add:
		if !strings.HasPrefix(l, "+") {
			p.fail(p.line, fmt.Sprintf("every line of an added file starts with +, got %q", clip(l)))
			return nil
		}
		p.addNew(l[1:])
		return nil
	}
	if strings.HasPrefix(l, "@@") {
		// A new chunk; its anchors are the @@ lines before its first line.
		if p.hunk != nil && (len(p.hunk.Old) > 0 || len(p.hunk.New) > 0) {
			p.closeHunk()
		}
		if p.hunk == nil {
			p.hunk = &Hunk{Line: p.line}
		}
		// The @@ line's text as written after "@@ ": its indentation
		// tells a method's line from a function's (Plan seeks it exactly
		// first, then leniently).
		if a := strings.TrimPrefix(strings.TrimPrefix(l, "@@"), " "); strings.TrimSpace(a) != "" {
			p.hunk.Anchors = append(p.hunk.Anchors, a)
		}
		return nil
	}
	if p.hunk == nil {
		p.hunk = &Hunk{Line: p.line}
	}
	if l != "" {
		p.blankTail = 0
	}
	switch {
	case l == "":
		// Models drop the space of an empty context line.
		p.addOld("")
		p.addNew("")
		p.blankTail++
	case l[0] == ' ':
		p.addOld(l[1:])
		p.addNew(l[1:])
	case l[0] == '-':
		p.addOld(l[1:])
	case l[0] == '+':
		p.addNew(l[1:])
	default:
		p.fail(p.line, fmt.Sprintf("a hunk line starts with ' ', '-' or '+', got %q", clip(l)))
	}
	return nil
}

// feedUnified reads one line of a unified diff (one file or many, as git
// and diff -u write them).
func (p *Parser) feedUnified(l string) []File {
	if p.hunk != nil && p.loose {
		if p.held != "" {
			held := p.held
			p.held = ""
			if strings.HasPrefix(l, "+++ ") {
				// The `--- ` line was the next file's header.
				p.closeHunk()
				done := p.feedUnified(held)
				return append(done, p.feedUnified(l)...)
			}
			p.hunkLineLoose(held, false)
		}
		if p.hunkLineLoose(l, true) {
			return nil
		}
		p.closeHunk()
	}
	if p.hunk != nil && (p.oldLeft > 0 || p.newLeft > 0) {
		return p.hunkLine(l)
	}
	if p.hunk != nil && strings.HasPrefix(l, `\`) {
		p.noEOL()
		return nil
	}
	switch {
	case strings.HasPrefix(l, "diff --git "):
		done := p.finish()
		p.gitOld, p.gitNew = "", ""
		if a, b, ok := gitPaths(strings.TrimPrefix(l, "diff --git ")); ok {
			p.gitOld, p.gitNew = a, b
		}
		p.format = "unified"
		p.cur = &File{Kind: Modify, Path: p.gitOld, Line: p.line}
		return done
	case strings.HasPrefix(l, "new file mode"):
		p.sureNew = true
		if p.cur != nil {
			p.cur.Kind = Add
			p.cur.Path = p.gitNew
			p.cur.Mode = p.mode(strings.TrimPrefix(l, "new file mode"))
		}
		return nil
	case strings.HasPrefix(l, "new mode "):
		if p.cur != nil {
			p.cur.Mode = p.mode(strings.TrimPrefix(l, "new mode "))
		}
		return nil
	case strings.HasPrefix(l, "GIT binary patch"), strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ"):
		name := p.gitNew
		if p.cur != nil && p.cur.Path != "" {
			name = p.cur.Path
		}
		if p.err == nil {
			p.err = &Error{Line: p.line, Msg: fmt.Sprintf("the patch of %s is a binary patch; sightline applies text patches only", name), Binary: true}
		}
		return nil
	case strings.HasPrefix(l, "deleted file mode"):
		if p.cur != nil {
			p.cur.Kind = Delete
		}
		return nil
	case strings.HasPrefix(l, "rename from "):
		if p.cur != nil {
			p.cur.Path = strings.TrimPrefix(l, "rename from ")
		}
		return nil
	case strings.HasPrefix(l, "rename to "):
		if p.cur != nil {
			p.cur.NewPath = strings.TrimPrefix(l, "rename to ")
		}
		return nil
	case strings.HasPrefix(l, "--- "):
		var done []File
		old := headerPath(l[4:])
		if p.cur == nil || p.headed || len(p.cur.Hunks) > 0 || p.hunk != nil || old != "" && p.gitOld != "" && old != p.gitOld {
			// A section of its own: only git's `diff --git` line comes
			// before the --- line of the same file (and names it).
			done = p.finish()
			p.cur = &File{Kind: Modify, Line: p.line}
			p.gitOld, p.gitNew = "", ""
		}
		p.format, p.headed = "unified", true
		if old == "" {
			p.cur.Kind = Add
		} else if p.cur.Path == "" || p.cur.Kind != Add {
			p.cur.Path = old
		}
		return done
	case strings.HasPrefix(l, "+++ ") && p.cur != nil && p.hunk == nil:
		nw := headerPath(l[4:])
		switch {
		case nw == "":
			p.cur.Kind = Delete
		case p.cur.Kind == Add || p.cur.Path == "":
			p.cur.Path = nw
		case nw != p.cur.Path && p.cur.NewPath == "" && p.gitOld == "":
			p.other = nw
		}
		return nil
	case strings.HasPrefix(l, "@@ "):
		if p.cur == nil || p.cur.Path == "" {
			p.fail(p.line, "a hunk before the --- and +++ lines that name its file")
			return nil
		}
		p.closeHunk()
		os, on, ns, nn, ok := hunkHeader(l)
		if !ok && countless(l) {
			p.hunk = &Hunk{Line: p.line}
			p.loose, p.oldLeft, p.newLeft = true, 0, 0
			return nil
		}
		if !ok {
			p.fail(p.line, fmt.Sprintf("a hunk header is @@ -START,COUNT +START,COUNT @@, got %q", clip(l)))
			return nil
		}
		_ = ns
		p.hunk, p.sureNew = &Hunk{OldStart: os, Line: p.line}, true
		p.oldLeft, p.newLeft = on, nn
		return nil
	}
	// Anything else between files (index lines, mode lines, prose around a
	// patch in model output) is not part of a hunk.
	return nil
}

func (p *Parser) hunkLine(l string) []File {
	side := byte(' ')
	body := ""
	if l != "" {
		side, body = l[0], l[1:]
	}
	switch side {
	case ' ':
		if p.oldLeft == 0 || p.newLeft == 0 {
			p.fail(p.line, "a context line past the hunk's counts")
			return nil
		}
		p.addOld(body)
		p.addNew(body)
		p.oldLeft--
		p.newLeft--
	case '-':
		if p.oldLeft == 0 {
			p.fail(p.line, "a removed line past the hunk's old count")
			return nil
		}
		p.addOld(body)
		p.oldLeft--
	case '+':
		if p.newLeft == 0 {
			p.fail(p.line, "an added line past the hunk's new count")
			return nil
		}
		p.addNew(body)
		p.newLeft--
	case '\\':
		p.noEOL()
		return nil
	default:
		p.fail(p.line, fmt.Sprintf("a hunk line starts with ' ', '-', '+' or '\\', got %q (%d old and %d new lines still expected)", clip(l), p.oldLeft, p.newLeft))
		return nil
	}
	p.lastSide = side
	return nil
}

// hunkLineLoose reads a line of a hunk without line counts, and reports
// whether it was one: ' ', '-', '+', '\\' or an empty line. A `--- ` line is
// held until the next line says what it is.
func (p *Parser) hunkLineLoose(l string, hold bool) bool {
	if hold && strings.HasPrefix(l, "--- ") {
		p.held = l
		return true
	}
	if l == "" {
		p.addOld("")
		p.addNew("")
		p.blankTail++
		return true
	}
	switch l[0] {
	case ' ':
		p.addOld(l[1:])
		p.addNew(l[1:])
	case '-':
		p.addOld(l[1:])
	case '+':
		p.addNew(l[1:])
	case '\\':
		p.noEOL()
		return true
	default:
		return false
	}
	p.blankTail = 0
	p.lastSide = l[0]
	return true
}

// countless reports whether l is a hunk header without line numbers, as
// aider writes them: `@@ ... @@`, `@@ @@`.
func countless(l string) bool {
	rest := strings.TrimPrefix(strings.TrimSpace(l), "@@")
	if i := strings.Index(rest, "@@"); i >= 0 {
		rest = rest[:i]
	}
	return !strings.ContainsAny(rest, "0123456789")
}

// noEOL marks the side of the line before `\ No newline at end of file`.
func (p *Parser) noEOL() {
	switch p.lastSide {
	case '-':
		p.hunk.OldNoEOL = true
	case '+':
		p.hunk.NewNoEOL = true
	default:
		p.hunk.OldNoEOL, p.hunk.NewNoEOL = true, true
	}
}

// mode parses a git file mode (octal, as "100755").
func (p *Parser) mode(s string) uint32 {
	m, err := strconv.ParseUint(strings.TrimSpace(s), 8, 32)
	if err != nil {
		p.fail(p.line, fmt.Sprintf("a file mode is octal, as 100644, got %q", clip(strings.TrimSpace(s))))
		return 0
	}
	return uint32(m)
}

// hunkHeader parses "@@ -l,s +l,s @@ ...".
func hunkHeader(l string) (os, on, ns, nn int, ok bool) {
	f := strings.Fields(l)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" && !strings.HasPrefix(f[3], "@@") || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, 0, false
	}
	os, on, ok1 := hunkRange(f[1][1:])
	ns, nn, ok2 := hunkRange(f[2][1:])
	return os, on, ns, nn, ok1 && ok2
}

func hunkRange(s string) (start, count int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// headerPath is the path of a ---/+++ line, without a/ b/ prefixes and
// timestamps; "" for /dev/null.
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i] // diff -u appends a tab and a timestamp
	}
	s = strings.TrimSpace(s)
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	for _, pre := range []string{"a/", "b/"} {
		if strings.HasPrefix(s, pre) {
			return s[len(pre):]
		}
	}
	return s
}

// gitPaths splits "a/x b/x" of a diff --git line (names without spaces, or
// the same name twice).
func gitPaths(s string) (string, string, bool) {
	if strings.HasPrefix(s, "a/") {
		if i := strings.Index(s, " b/"); i >= 0 {
			return s[2:i], s[i+3:], true
		}
	}
	return "", "", false
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
