package editblock

import (
	"bytes"
	"fmt"
	"slices"
)

const (
	markEdit    = "<<<< EDIT"
	markReplace = "==== REPLACE"
	markEnd     = ">>>> EDIT END"
	// aider's SEARCH/REPLACE blocks (also written by Cline, Roo and
	// Continue): the path on a line before, no path on the marker line.
	aiderEdit    = "<<<<<<< SEARCH"
	aiderReplace = "======="
	aiderEnd     = ">>>>>>> REPLACE"
)

const (
	// headMax is how much of a line outside a block the scanner looks at:
	// enough for any marker and any path. Prose lines are cut there, so a
	// huge line costs no memory and parsing stays independent of chunking.
	headMax = 512
	// candMax: longer lines are never path candidates.
	candMax = 256
)

// Block is one complete edit block found in model output.
type Block struct {
	// Index is the block's 0-based position among all "<<<< EDIT" markers
	// of the output: Blocks, Orphans and the Partial share the numbering,
	// so sorting by Index gives output order.
	Index int
	// Path is the path as written, unwrapped from markdown (`a.go`, **a.go**,
	// ### a.go). The caller resolves and polices it.
	Path string
	// Inherited says Path was not written before this block: it follows the
	// previous block with only blank lines or fences in between, and takes
	// that block's path.
	Inherited bool
	Old       []string // EDIT half, lines without terminators
	New       []string // REPLACE half
	// OldCR and NewCR say which lines of each half ended with "\r\n" in
	// the output, nil when none did. A block whose EDIT lines end as the
	// file's lines they match, line for line, is byte-exact and its new
	// lines keep their own line breaks (MatchBlock); a file the block
	// creates takes them too.
	OldCR, NewCR []bool
	// Line is the 1-based line of the "<<<< EDIT" marker in the output.
	Line int
	// Words, when set, name the lines in diagnoses instead of the edit
	// block's words (a patch's matcher speaks of hunks).
	Words *Words
}

// IsCreate reports whether the block creates a file (empty EDIT half).
func (b Block) IsCreate() bool { return len(b.Old) == 0 }

// IsNoOp reports whether the block changes nothing: both halves are the same
// non-empty lines.
func (b Block) IsNoOp() bool {
	if len(b.Old) == 0 || len(b.Old) != len(b.New) {
		return false
	}
	for i := range b.Old {
		if b.Old[i] != b.New[i] || b.oldCR(i) != b.newCR(i) {
			return false
		}
	}
	return true
}

// oldCR and newCR say whether line i of a half ended with "\r\n".
func (b Block) oldCR(i int) bool { return b.OldCR != nil && b.OldCR[i] }
func (b Block) newCR(i int) bool { return b.NewCR != nil && b.NewCR[i] }

// Anchor returns the number of leading lines both halves share: the
// anchor, which stays as it is.
func (b Block) Anchor() int {
	k := 0
	for k < len(b.Old) && k < len(b.New) && b.Old[k] == b.New[k] {
		k++
	}
	return k
}

// Orphan reasons.
const (
	OrphanNoPath       = "no_path"       // complete block without a path line before it
	OrphanNoReplace    = "no_replace"    // ">>>> EDIT END" or the next "<<<< EDIT" before "==== REPLACE"
	OrphanNoEnd        = "no_end"        // the next "<<<< EDIT" before ">>>> EDIT END"
	OrphanExtraReplace = "extra_replace" // a second "==== REPLACE"
)

// Orphan is a "<<<< EDIT" the parser could not turn into a Block. Nothing of
// it is applied; the caller reports it (status skipped).
type Orphan struct {
	Index   int
	Path    string // "" when no path was found
	Line    int    // 1-based line of its "<<<< EDIT"
	Reason  string // one of the Orphan constants
	Message string // for the model
}

// Partial is a block the output ended in: never applied.
type Partial struct {
	Index int
	Path  string // "" when no path was found
	Line  int    // 1-based line of its "<<<< EDIT"
	// InNew says "==== REPLACE" was seen.
	InNew   bool
	Message string
}

type state uint8

const (
	scanning state = iota
	readingOld
	readingNew
)

// Parser finds edit blocks in a stream of model output. Feed it chunks of
// any size with Write; it emits each block when its ">>>> EDIT END" arrives.
// The blocks, orphans and partial it reports do not depend on how the output
// is cut into chunks. Lines end at "\n", "\r\n" or "\r" (the LSP rule), also
// when a "\r\n" is split between chunks. A Parser is not safe for concurrent
// use; its zero value is ready.
type Parser struct {
	// Exists, when set, reports whether a bare name (a word without '/' or
	// extension, as Makefile or tmpk2j3h4) is a file, which makes it a path.
	// The parser itself knows nothing of files.
	Exists func(name string) bool

	st      state
	line    []byte // the current line so far, when it continues in the next chunk
	skip    bool   // the rest of the current line is ignored: its ">>>> EDIT END" prefix already ended a block
	afterCR bool   // the last byte seen ended a line with '\r': a '\n' right after it belongs to it
	// term is the terminator of the line being completed: '\n', 'c'
	// ("\r\n"), 'r' (a lone '\r') or 'u' ('\r' at the end of a chunk: the
	// next chunk says which).
	term   byte
	lineNo int // lines completed so far

	cand     []byte // the last non-blank, non-fence short line: the path candidate
	hasCand  bool
	inherit  bool   // only blank lines and fences since the last block ended
	lastPath string // that block's path
	// fenced: the last block ended inside the code fence still open, and no
	// line since names a file: a block with no path there takes lastPath.
	fenced   bool
	fenceCh  byte // the open fence's character while scanning ('`' or '~')
	fenceLen int  // its length; 0 when no fence is open

	next    int // Index of the next "<<<< EDIT"
	cur     pending
	out     []Block
	orphans []Orphan
}

// pending is the block being read.
type pending struct {
	index, line int
	aider       bool // opened by aider's "<<<<<<< SEARCH": its markers close it
	path        string
	inherited   bool
	notPath     string // the line before it, when that was no path: for the message
	body        []byte // the contents of all its lines, back to back
	ends        []int  // end offset in body of each line
	nOld        int    // lines of the EDIT half
	// crs says which lines ended with "\r\n"; crWait: the last one ended
	// with a '\r' at the end of a chunk (the next chunk says which).
	crs    []bool
	crWait bool
}

// NewParser returns a ready parser.
func NewParser() *Parser { return &Parser{} }

// Write feeds the next chunk of output and returns the blocks it completed,
// in order (nil when none). Orphans found meanwhile wait for Orphans.
func (p *Parser) Write(chunk []byte) []Block {
	p.out = nil
	if len(chunk) == 0 {
		return nil
	}
	if p.afterCR {
		p.afterCR = false
		if chunk[0] == '\n' {
			chunk = chunk[1:]
		} else if p.cur.crWait {
			p.cur.crs[len(p.cur.crs)-1] = false
		}
		p.cur.crWait = false
	}
	pos, lf := 0, -1 // lf: index of the next '\n' at or after pos, or len(chunk)
	for pos < len(chunk) {
		if lf < pos {
			if j := bytes.IndexByte(chunk[pos:], '\n'); j >= 0 {
				lf = pos + j
			} else {
				lf = len(chunk)
			}
		}
		// The '\r' search is bounded by the '\n' found, so scanning stays
		// linear whatever the terminators.
		end := lf
		if j := bytes.IndexByte(chunk[pos:lf], '\r'); j >= 0 {
			end = pos + j
		}
		if end == len(chunk) {
			p.carry(chunk[pos:])
			break
		}
		next := end + 1
		p.term = '\n'
		if chunk[end] == '\r' {
			p.term = 'r'
			if next < len(chunk) {
				if chunk[next] == '\n' {
					next++
					p.term = 'c'
				}
			} else {
				p.afterCR = true
				p.term = 'u'
			}
		}
		p.complete(chunk[pos:end])
		pos = next
	}
	// A block ends as soon as its end marker is there, not when the line
	// does: the last line of a stream often has no terminator, and the
	// caller applies blocks as they complete.
	if p.st == readingNew && !p.skip && p.isEnd(p.line) {
		p.finish()
		p.skip = true
		p.line = p.line[:0]
	}
	return p.out
}

// carry keeps the start of a line that continues in the next chunk.
func (p *Parser) carry(b []byte) {
	switch {
	case p.skip:
	case p.st == scanning:
		p.line = append(p.line, b[:min(len(b), max(headMax-len(p.line), 0))]...)
	default:
		p.line = append(p.line, b...)
	}
}

// complete handles the line that ends with c.
func (p *Parser) complete(c []byte) {
	switch {
	case p.skip:
		p.skip = false
		p.line = p.line[:0]
	case len(p.line) > 0:
		p.carry(c)
		p.process(p.line)
		p.line = p.line[:0]
	default:
		p.process(c)
	}
	p.lineNo++
}

// Buffered returns the bytes the parser holds for the block being read (its
// lines and their offsets) and the line in progress: what a caller bounds
// against output that never ends its block.
func (p *Parser) Buffered() int {
	return cap(p.cur.body) + 8*cap(p.cur.ends) + cap(p.cur.crs) + cap(p.line)
}

// Orphans returns the orphans found since the last call, in order, and
// forgets them. Call it after Write (or at least after Close) to report
// every "<<<< EDIT" the output holds.
func (p *Parser) Orphans() []Orphan {
	o := p.orphans
	p.orphans = nil
	return o
}

// Pending describes the block being read, or nil: what a UI shows as in
// progress.
func (p *Parser) Pending() *Partial {
	if p.st == scanning {
		return nil
	}
	return &Partial{Index: p.cur.index, Path: p.cur.path, Line: p.cur.line, InNew: p.st == readingNew}
}

// Close ends the stream. A block the output ended in is never returned as a
// Block: it is described by the Partial (nil when there is none), so the
// caller can say the block was not finished. Orphans found by Close wait for
// Orphans. The parser is then ready for a new stream.
func (p *Parser) Close() *Partial {
	// A last line without terminator: complete it. (It cannot finish a
	// block: Write already ended blocks at an end marker without one.)
	if !p.skip && len(p.line) > 0 {
		p.term = 0
		p.process(p.line)
		p.lineNo++
	}
	var part *Partial
	if pd := p.Pending(); pd != nil {
		part = pd
		what := "the edit block"
		if pd.Path != "" {
			what = fmt.Sprintf("the edit block for %s", pd.Path)
		}
		missing := "`==== REPLACE` and `>>>> EDIT END`"
		if pd.InNew {
			missing = "`>>>> EDIT END`"
		}
		part.Message = fmt.Sprintf("%s at output line %d was not finished: the output ended before its %s. It was not applied; send the whole block again.",
			capital(what), pd.Line, missing)
	}
	*p = Parser{orphans: p.orphans, Exists: p.Exists}
	return part
}

// Parsed is everything found in one output.
type Parsed struct {
	Blocks  []Block
	Orphans []Orphan
	Partial *Partial
}

// process handles one complete line (content without terminator).
func (p *Parser) process(c []byte) {
	switch p.st {
	case scanning:
		if len(c) > headMax {
			c = c[:headMax]
		}
		if rest, aider, ok := editMarker(c); ok {
			p.start(rest, aider)
			return
		}
		p.trackFence(c)
		p.note(c)
	case readingOld:
		if rest, aider, ok := editMarker(c); ok {
			p.orphan(OrphanNoReplace)
			p.start(rest, aider)
			return
		}
		switch {
		case p.isReplace(c):
			p.cur.nOld = len(p.cur.ends)
			p.st = readingNew
			p.hasCand = false
		case p.isEnd(c):
			p.orphan(OrphanNoReplace)
			p.st = scanning
		default:
			p.add(c)
		}
	case readingNew:
		if rest, aider, ok := editMarker(c); ok {
			p.orphan(OrphanNoEnd)
			p.start(rest, aider)
			return
		}
		switch {
		case p.isEnd(c):
			p.finish()
		case p.isReplace(c):
			p.orphan(OrphanExtraReplace)
			p.st = scanning
		default:
			p.add(c)
		}
	}
}

// note records a line outside the edit halves' markers as the path
// candidate, unless it is blank or a code fence: those may stand between a
// path and its "<<<< EDIT".
func (p *Parser) note(c []byte) {
	t := trimSpace(c)
	if len(t) == 0 {
		return
	}
	if info, ok := fenceInfo(t); ok {
		// "```src/a.go" names the file; "```go" does not.
		if f := lastField(info); len(f) > 0 {
			if _, ok := pathFrom(f); ok {
				p.cand = append(p.cand[:0], f...)
				p.hasCand = true
				p.inherit = false
			}
		}
		return
	}
	p.inherit = false
	if p.fenced && p.namesFile(t) {
		p.fenced = false
	}
	if len(c) > candMax {
		p.hasCand = false
		return
	}
	p.cand = append(p.cand[:0], c...)
	p.hasCand = true
}

// add appends a content line to the block being read. It is also a path
// candidate, for a next "<<<< EDIT" that shows this block was malformed.
func (p *Parser) add(c []byte) {
	p.cur.crs = append(p.cur.crs, p.term == 'c' || p.term == 'u')
	p.cur.crWait = p.term == 'u'
	p.cur.body = append(p.cur.body, c...)
	p.cur.ends = append(p.cur.ends, len(p.cur.body))
	p.note(c)
}

// start begins a block at a "<<<< EDIT" line; rest is what follows the
// marker on its line.
func (p *Parser) start(rest []byte, aider bool) {
	cur := pending{index: p.next, line: p.lineNo + 1, aider: aider, body: p.cur.body[:0], ends: p.cur.ends[:0], crs: p.cur.crs[:0]}
	p.next++
	if path, ok := pathFrom(rest); ok {
		cur.path = path
	} else if p.hasCand {
		var ok bool
		if cur.path, ok = pathFrom(p.cand); !ok {
			if name, bare := bareName(p.cand); bare && p.Exists != nil && p.Exists(name) {
				cur.path = name
			} else if p.fenced {
				cur.path, cur.inherited = p.lastPath, true
			} else {
				cur.notPath = string(trimSpace(p.cand))
			}
		}
	} else if p.inherit {
		cur.path, cur.inherited = p.lastPath, true
	}
	p.cur = cur
	p.st = readingOld
	p.hasCand, p.inherit = false, false
}

// finish ends the block being read at its end marker.
func (p *Parser) finish() {
	p.st = scanning
	p.hasCand = false
	if p.cur.path == "" {
		p.orphan(OrphanNoPath)
		return
	}
	text := string(p.cur.body) // one allocation for all the block's lines
	b := Block{Index: p.cur.index, Path: p.cur.path, Inherited: p.cur.inherited, Line: p.cur.line}
	b.OldCR, b.NewCR = someTrue(p.cur.crs[:p.cur.nOld]), someTrue(p.cur.crs[p.cur.nOld:])
	b.Old = make([]string, p.cur.nOld)
	b.New = make([]string, len(p.cur.ends)-p.cur.nOld)
	from := 0
	for i, end := range p.cur.ends {
		if i < p.cur.nOld {
			b.Old[i] = text[from:end]
		} else {
			b.New[i-p.cur.nOld] = text[from:end]
		}
		from = end
	}
	p.out = append(p.out, b)
	p.lastPath, p.inherit, p.fenced = b.Path, true, p.fenceLen > 0
}

// someTrue is a copy of bs, or nil when none is true.
func someTrue(bs []bool) []bool {
	if !slices.Contains(bs, true) {
		return nil
	}
	return slices.Clone(bs)
}

// trackFence follows the code fence open between blocks (CommonMark: a run
// of three or more '`' or '~' opens one; a run of the same character at
// least as long, with no info string, closes it). Closing the fence a
// block ended in ends the reach of its path.
func (p *Parser) trackFence(c []byte) {
	t := trimSpace(c)
	info, ok := fenceInfo(t)
	if !ok {
		return
	}
	n := len(t) - len(bytes.TrimLeft(t, string(t[:1])))
	switch {
	case p.fenceLen == 0:
		p.fenceCh, p.fenceLen = t[0], n
	case t[0] == p.fenceCh && n >= p.fenceLen && len(info) == 0:
		p.fenceLen, p.fenced = 0, false
	}
}

// orphan reports the block being read as unusable. The caller sets the
// next state.
func (p *Parser) orphan(reason string) {
	o := Orphan{Index: p.cur.index, Path: p.cur.path, Line: p.cur.line, Reason: reason}
	what := fmt.Sprintf("The edit block at output line %d", o.Line)
	if o.Path != "" {
		what = fmt.Sprintf("The edit block for %s at output line %d", o.Path, o.Line)
	}
	edit, replace, end := markEdit, markReplace, markEnd
	if p.cur.aider {
		edit, replace, end = aiderEdit, aiderReplace, aiderEnd
	}
	switch reason {
	case OrphanNoPath:
		o.Message = fmt.Sprintf("%s has no file path: put the path alone on the line right before `%s`. It was skipped.", what, edit)
		if p.cur.notPath != "" {
			o.Message = fmt.Sprintf("%s has no file path: the line before it, %s, is not one. Put the path alone on the line right before `%s`. It was skipped.",
				what, quote(p.cur.notPath), edit)
		}
	case OrphanNoReplace:
		o.Message = fmt.Sprintf("%s has no `%s` line between its old and new lines. It was skipped; send it again complete.", what, replace)
	case OrphanNoEnd:
		o.Message = fmt.Sprintf("%s has no `%s` line before the next `%s`. It was skipped; send it again complete.", what, end, edit)
	case OrphanExtraReplace:
		o.Message = fmt.Sprintf("%s has two `%s` lines. It was skipped; send one block per change.", what, replace)
	}
	p.orphans = append(p.orphans, o)
	p.inherit, p.fenced = false, false
}

// namesFile reports whether a prose line has a word that is a path (or a
// bare name of an existing file): a block after it may be meant for that
// file, so it does not take the previous block's path.
func (p *Parser) namesFile(t []byte) bool {
	for _, w := range bytes.Fields(t) {
		w = bytes.TrimRight(w, ".,;:!?)")
		if _, ok := pathFrom(w); ok {
			return true
		}
		if name, bare := bareName(w); bare && p.Exists != nil && p.Exists(name) {
			return true
		}
	}
	return false
}

// editMarker reports whether c opens a block: a "<<<< EDIT" line (and what
// follows the marker on it), or aider's "<<<<<<< SEARCH" (aider true).
func editMarker(c []byte) (rest []byte, aider, ok bool) {
	if word, ok := aiderMarker(c, '<', "SEARCH"); ok && (len(word) == 0 || string(word) == ">") {
		return nil, true, true
	}
	if !bytes.HasPrefix(c, []byte(markEdit)) {
		return nil, false, false
	}
	rest = c[len(markEdit):]
	if len(rest) > 0 && !isSpace(rest[0]) {
		return nil, false, false
	}
	return rest, false, true
}

// aiderMarker reports whether c is an aider marker: 5 to 9 times ch, a
// space and word (none for the divider), trailing space allowed; it returns
// what follows word.
func aiderMarker(c []byte, ch byte, word string) ([]byte, bool) {
	c = trimRightSpace(c)
	n := 0
	for n < len(c) && c[n] == ch {
		n++
	}
	if n < 5 || n > 9 {
		return nil, false
	}
	c = c[n:]
	if word == "" {
		return nil, len(c) == 0
	}
	if len(c) < 1+len(word) || c[0] != ' ' || string(c[1:1+len(word)]) != word {
		return nil, false
	}
	return c[1+len(word):], true
}

// isReplace reports whether c divides the block being read.
func (p *Parser) isReplace(c []byte) bool {
	if p.cur.aider {
		_, ok := aiderMarker(c, '=', "")
		return ok
	}
	return string(trimRightSpace(c)) == markReplace
}

// isEnd reports whether c ends the block being read.
func (p *Parser) isEnd(c []byte) bool {
	if p.cur.aider {
		// Like ">>>> EDIT END", the marker ends the block as soon as it is
		// there, whatever follows it on its line.
		_, ok := aiderMarker(c, '>', "REPLACE")
		return ok
	}
	return bytes.HasPrefix(c, []byte(markEnd))
}

// fenceInfo reports whether t (trimmed) opens or closes a markdown code
// fence, and its info string.
func fenceInfo(t []byte) ([]byte, bool) {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') || t[1] != t[0] || t[2] != t[0] {
		return nil, false
	}
	i := 3
	for i < len(t) && t[i] == t[0] {
		i++
	}
	return trimSpace(t[i:]), true
}

// lastField returns the last space-separated field of t.
func lastField(t []byte) []byte {
	i := len(t)
	for i > 0 && !isSpace(t[i-1]) {
		i--
	}
	return t[i:]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func trimRightSpace(b []byte) []byte {
	j := len(b)
	for j > 0 && isSpace(b[j-1]) {
		j--
	}
	return b[:j]
}

func capital(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
