package hashline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
)

// The edit op types of PROTOCOL section 6.
const (
	ReplaceLine  = "replace_line"
	ReplaceRange = "replace_range"
	InsertAfter  = "insert_after"
	InsertBefore = "insert_before"
	DeleteLine   = "delete_line"
	DeleteRange  = "delete_range"

	// The symbol types name a declaration instead of lines: the caller
	// finds its lines (Edit.Lines) and applies the line type they mean.
	ReplaceSymbol      = "replace_symbol"
	InsertBeforeSymbol = "insert_before_symbol"
	InsertAfterSymbol  = "insert_after_symbol"
)

// opTypes lists the types in the order error messages name them.
var opTypes = [...]string{ReplaceLine, ReplaceRange, InsertAfter, InsertBefore, DeleteLine, DeleteRange, ReplaceSymbol, InsertBeforeSymbol, InsertAfterSymbol}

// spec is what an op type takes.
type spec struct {
	isRange bool // start_ref and end_ref; else ref
	content bool // new_content is required; else it is refused
	insert  bool
	symbol  bool // symbol; no ref
}

func specOf(typ string) (spec, bool) {
	switch typ {
	case ReplaceLine:
		return spec{content: true}, true
	case ReplaceRange:
		return spec{isRange: true, content: true}, true
	case InsertAfter, InsertBefore:
		return spec{content: true, insert: true}, true
	case DeleteLine:
		return spec{}, true
	case DeleteRange:
		return spec{isRange: true}, true
	case ReplaceSymbol:
		return spec{content: true, symbol: true}, true
	case InsertBeforeSymbol, InsertAfterSymbol:
		return spec{content: true, insert: true, symbol: true}, true
	}
	return spec{}, false
}

// Edit is one op as the model writes it. The JSON names are snake_case and are
// passed through unchanged by the extension, the CLI and MCP.
type Edit struct {
	Type       string  `json:"type"` // one of the op type constants
	Ref        string  `json:"ref,omitempty"`
	StartRef   string  `json:"start_ref,omitempty"`
	EndRef     string  `json:"end_ref,omitempty"`
	NewContent *string `json:"new_content,omitempty"` // raw lines joined by "\n": see SplitContent
	// Symbol is the declaration a symbol type names ("Name",
	// "Class.method").
	Symbol string `json:"symbol,omitempty"`
}

// Refs returns the refs the edit names, in order: ref, or start_ref then
// end_ref; none for a symbol type.
func (e Edit) Refs() []string {
	sp, ok := specOf(e.Type)
	switch {
	case ok && sp.symbol:
		return nil
	case ok && sp.isRange:
		return []string{e.StartRef, e.EndRef}
	}
	return []string{e.Ref}
}

// Lines is a symbol type's edit as the line type it means, once the
// caller has found the declaration's lines (1-based, inclusive): replace
// them, insert before the first or after the last. Any other edit is
// returned as it is, with its lines unused (start, end).
func (e Edit) Lines(start, end int) (Edit, int, int) {
	switch e.Type {
	case ReplaceSymbol:
		return Edit{Type: ReplaceRange, NewContent: e.NewContent}, start, end
	case InsertBeforeSymbol:
		return Edit{Type: InsertBefore, NewContent: e.NewContent}, start, start
	case InsertAfterSymbol:
		return Edit{Type: InsertAfter, NewContent: e.NewContent}, end, end
	}
	return e, start, end
}

// Known field names.
const (
	fType       = "type"
	fRef        = "ref"
	fStartRef   = "start_ref"
	fEndRef     = "end_ref"
	fNewContent = "new_content"
	fSymbol     = "symbol"
)

// hints maps names models use by mistake to the field they meant, so a
// refusal can say "did you mean". Only used to word errors.
var hints = map[string]string{
	"content": fNewContent, "text": fNewContent, "newtext": fNewContent, "newcontent": fNewContent,
	"replacement": fNewContent, "lines": fNewContent, "code": fNewContent,
	"line": fRef, "anchor": fRef, "startref": fStartRef, "start": fStartRef, "from": fStartRef,
	"endref": fEndRef, "end": fEndRef, "to": fEndRef, "op": fType, "kind": fType, "action": fType,
}

func normName(s string) string {
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
}

// DecodeEdits decodes the edits array of a sightline/edit call.
//
// Input: a JSON array of edit objects. Two slips models make often are
// accepted because their meaning is unambiguous: the array sent as a JSON
// string holding the array, and a single edit object instead of an array.
// An empty batch is refused: a model that sends none made a mistake, and an
// "ok" answer would hide it.
//
// Fields: each type takes exactly its fields (PROTOCOL section 6). A known
// field that the type does not take is refused, because it shows the model
// meant another op (a delete_line with an end_ref meant a delete_range, a
// delete with new_content meant a replace) and guessing would edit the wrong
// lines. Unknown keys ("description", "reason") are ignored, since they cannot
// change what is done; when a required field is missing, the refusal names
// the unknown keys it saw, so "newContent" gets a "did you mean". A JSON null
// counts as absent.
//
// Errors are *result.Error: kind invalid_edit naming the edit's 0-based index
// in the array and its type ("edits[2] (replace_range): end_ref is
// required"), or invalid_ref (wrapping ErrInvalidRef) for a ref that does not
// parse.
func DecodeEdits(raw []byte) ([]Edit, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, result.Errorf(result.InvalidEdit, "edits: %v", jsonErr(err))
		}
		raw = bytes.TrimSpace([]byte(inner))
	}
	var items []json.RawMessage
	switch {
	case len(raw) > 0 && raw[0] == '{':
		items = []json.RawMessage{raw}
	case len(raw) > 0 && raw[0] == '[':
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, result.Errorf(result.InvalidEdit, "edits: %v", jsonErr(err))
		}
	default:
		return nil, result.Errorf(result.InvalidEdit, `edits must be a JSON array of edit objects, e.g. [{"type": "replace_line", "ref": "12:a3Kf", "new_content": "x := 1"}]`)
	}
	if len(items) == 0 {
		return nil, result.Errorf(result.InvalidEdit, "edits is empty: give at least one edit")
	}
	out := make([]Edit, len(items))
	for i, it := range items {
		e, err := decodeEdit(i, it)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// jsonErr shortens encoding/json's messages, which name Go types.
func jsonErr(err error) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}

func decodeEdit(i int, raw json.RawMessage) (Edit, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return Edit{}, result.Errorf(result.InvalidEdit, "edits[%d]: each edit must be a JSON object with a \"type\"", i)
	}
	var unknown []string
	for k := range obj {
		switch k {
		case fType, fRef, fStartRef, fEndRef, fNewContent, fSymbol:
		default:
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	// A JSON null is an absent field.
	for k, v := range obj {
		if string(bytes.TrimSpace(v)) == "null" {
			delete(obj, k)
		}
	}
	str := func(k string) (string, bool, error) {
		v, ok := obj[k]
		if !ok {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", true, fmt.Errorf("%s must be a string", k)
		}
		return s, true, nil
	}

	typ, ok, err := str(fType)
	if err != nil {
		return Edit{}, result.Errorf(result.InvalidEdit, "edits[%d]: %v (one of %s)", i, err, typeList())
	}
	if !ok {
		return Edit{}, result.Errorf(result.InvalidEdit, "edits[%d]: type is required (one of %s)%s", i, typeList(), unknownNote(fType, unknown))
	}
	sp, known := specOf(typ)
	if !known {
		return Edit{}, result.Errorf(result.InvalidEdit, "edits[%d]: unknown type %q (want one of %s)", i, typ, typeList())
	}
	where := fmt.Sprintf("edits[%d] (%s)", i, typ)
	fail := func(format string, args ...any) (Edit, error) {
		return Edit{}, result.Errorf(result.InvalidEdit, where+": "+format, args...)
	}

	e := Edit{Type: typ}
	refFields := []string{fRef}
	notFields := []string{fStartRef, fEndRef, fSymbol}
	switch {
	case sp.symbol:
		refFields, notFields = nil, []string{fRef, fStartRef, fEndRef}
		name, has, err := str(fSymbol)
		switch {
		case err != nil:
			return fail("%v (the declaration's name, e.g. \"Class.method\")", err)
		case !has || strings.TrimSpace(name) == "":
			return fail("symbol is required: the declaration's name, e.g. \"Class.method\"%s", unknownNote(fSymbol, unknown))
		}
		e.Symbol = name
	case sp.isRange:
		refFields, notFields = []string{fStartRef, fEndRef}, []string{fRef, fSymbol}
	}
	for _, f := range notFields {
		if _, has := obj[f]; has {
			switch {
			case sp.symbol:
				return fail("takes symbol, not %s (a symbol type finds the declaration's lines itself)", f)
			case f == fSymbol:
				return fail("takes no symbol (use replace_symbol, insert_before_symbol or insert_after_symbol to edit a declaration by name)")
			}
			if sp.isRange {
				return fail("takes start_ref and end_ref, not ref (use %s for one line)", singleOf(typ))
			}
			return fail("takes ref, not start_ref/end_ref (use %s for a range of lines)", rangeOf(typ))
		}
	}
	for _, f := range refFields {
		s, has, err := str(f)
		if err != nil {
			return Edit{}, result.Wrap(result.InvalidRef, fmt.Errorf("%w: %v", ErrInvalidRef, err),
				fmt.Sprintf("%s: %v, e.g. \"12:a3Kf\"", where, err))
		}
		if !has {
			return fail("%s is required%s", f, unknownNote(f, unknown))
		}
		if _, err := ParseRef(s); err != nil {
			return Edit{}, result.Wrap(result.InvalidRef, err, fmt.Sprintf("%s: %s: %v", where, f, err))
		}
		switch f {
		case fRef:
			e.Ref = s
		case fStartRef:
			e.StartRef = s
		case fEndRef:
			e.EndRef = s
		}
	}
	nc, has, err := str(fNewContent)
	switch {
	case err != nil:
		return fail("%v (the new lines joined by \"\\n\")", err)
	case sp.content && !has:
		return fail("new_content is required%s", unknownNote(fNewContent, unknown))
	case !sp.content && has:
		return fail("takes no new_content (use %s to change lines)", replaceOf(typ))
	case has:
		e.NewContent = &nc
	}
	return e, nil
}

func typeList() string { return strings.Join(opTypes[:], ", ") }

// unknownNote words the unknown keys of an edit for a refusal about the
// missing field want, with a "did you mean" when one of them looks like it.
func unknownNote(want string, unknown []string) string {
	if len(unknown) == 0 {
		return ""
	}
	for _, k := range unknown {
		n := normName(k)
		if n == normName(want) || hints[n] == want {
			return fmt.Sprintf(" (got %q: did you mean %q?)", k, want)
		}
	}
	q := make([]string, len(unknown))
	for i, k := range unknown {
		q[i] = fmt.Sprintf("%q", k)
	}
	return fmt.Sprintf(" (unknown fields ignored: %s)", strings.Join(q, ", "))
}

func singleOf(typ string) string {
	if typ == DeleteRange {
		return DeleteLine
	}
	return ReplaceLine
}

func rangeOf(typ string) string {
	if typ == DeleteLine {
		return DeleteRange
	}
	return ReplaceRange
}

func replaceOf(typ string) string {
	if typ == DeleteRange {
		return ReplaceRange
	}
	return ReplaceLine
}

// Op is an edit with its refs resolved to current 1-based line numbers (the
// caller resolves refs, PROTOCOL section 7).
type Op struct {
	Index      int    // position in the batch, for error messages
	Type       string // one of the op type constants
	Start, End int    // 1-based inclusive: the replaced or deleted lines; Start == End == the anchor line for inserts
	// Content holds the new lines' contents, without terminators (nil for
	// deletes). See SplitContent.
	Content []string
	// Terms, when not nil, are the line breaks of Content's lines, one each
	// ("\n", "\r\n"): the lines keep their own instead of Dominant and the
	// replaced line's (an edit block or hunk that carries the file's line
	// breaks exactly, so a change of line break is a change). The
	// final-newline state of the file is kept all the same.
	Terms []string
}

// Op builds the Op of e, whose refs the caller resolved to the 1-based lines
// start and end (for one-ref types, start == end == the ref's line).
//
// It refuses (invalid_edit) a range whose start_ref resolves after its
// end_ref, and a new_content that echoes the read format: every non-empty
// line starting with a hashline prefix ("12:a3Kf|"). Such content is never
// rewritten, because stripping could remove text the model meant to write.
func (e Edit) Op(index, start, end int) (Op, error) {
	sp, ok := specOf(e.Type)
	if sp.symbol {
		// start..end are the declaration's lines.
		l, s, en := e.Lines(start, end)
		return l.Op(index, s, en)
	}
	where := fmt.Sprintf("edits[%d] (%s)", index, e.Type)
	switch {
	case !ok:
		return Op{}, result.Errorf(result.InvalidEdit, "edits[%d]: unknown type %q (want one of %s)", index, e.Type, typeList())
	case start < 1 || end < 1:
		return Op{}, result.Errorf(result.InvalidEdit, "%s: line numbers start at 1 (got %d-%d)", where, start, end)
	case sp.isRange && start > end:
		return Op{}, result.Errorf(result.InvalidEdit,
			"%s: start_ref %s (line %d) comes after end_ref %s (line %d): start_ref must name the first line of the range",
			where, e.StartRef, start, e.EndRef, end)
	case !sp.isRange && start != end:
		return Op{}, result.Errorf(result.InvalidEdit, "%s: names one line, got lines %d-%d", where, start, end)
	case sp.content && e.NewContent == nil:
		return Op{}, result.Errorf(result.InvalidEdit, "%s: new_content is required", where)
	case !sp.content && e.NewContent != nil:
		return Op{}, result.Errorf(result.InvalidEdit, "%s: takes no new_content (use %s to change lines)", where, replaceOf(e.Type))
	}
	op := Op{Index: index, Type: e.Type, Start: start, End: end}
	if sp.content {
		op.Content = SplitContent(*e.NewContent)
		if echoesPrefixes(op.Content) {
			return Op{}, result.Errorf(result.InvalidEdit,
				"%s: every line of new_content starts with a hashline prefix like \"12:a3Kf|\": send the raw lines without the LINE:HASH| prefixes", where)
		}
	}
	return op, nil
}

// SplitContent splits a new_content into the contents of the lines it holds.
// Lines are joined by "\n" ("\r\n" and a lone "\r" end a line too: the LSP
// rule, so no new line can hold a terminator). One trailing terminator ends
// the last line rather than starting an empty one, so "a\n" is the one line
// "a", like "a"; "" is one empty line, and so is "\n". To remove lines use a
// delete op.
func SplitContent(s string) []string {
	if s == "" {
		return []string{""}
	}
	out := make([]string, 0, lines.Count(s))
	for s != "" {
		var l lines.Line
		l, s = lines.Next(s)
		out = append(out, l.Content)
	}
	return out
}

// echoesPrefixes reports whether every non-empty line (and at least one)
// starts with a hashline prefix.
func echoesPrefixes(content []string) bool {
	seen := false
	for _, c := range content {
		if c == "" {
			continue
		}
		if !HasPrefix(c) {
			return false
		}
		seen = true
	}
	return seen
}
