package patch

import (
	"fmt"
	"strings"
	"unicode"
)

// Codex's apply_patch reads its patches with a grammar of its own, more
// lenient than the V4A envelope Parse reads in some places (a missing @@
// before the first chunk, a heredoc around the patch) and stricter in
// others (nothing before *** Begin Patch or after *** End Patch, one @@ line
// per chunk, paths taken as written). A door that judges what Codex is
// about to do must read the patch exactly as Codex will: ParseCodex is that
// reading (Codex 0.169's, checked against its binary), and it reads nothing
// else. Where Codex releases read a patch differently (a marker line with
// trailing whitespace, a blank line right after a file's header), it
// refuses the patch: no single reading is the one Codex will make.

// The markers of Codex's grammar.
const (
	codexBegin      = "*** Begin Patch"
	codexEnd        = "*** End Patch"
	codexAdd        = "*** Add File: "
	codexDelete     = "*** Delete File: "
	codexUpdate     = "*** Update File: "
	codexMove       = "*** Move to: "
	codexEOF        = "*** End of File"
	codexContext    = "@@ "
	codexNoContext  = "@@"
	codexHunkFormat = "every line should start with ' ' (context line), '+' (added line), or '-' (removed line)"
)

// ParseCodex reads a patch as Codex's apply_patch reads it (its lenient
// mode, the one Codex uses). Each File's Path and NewPath are as the patch
// spells them, relative to the folder Codex runs in unless absolute; a
// Modify's hunks carry at most one anchor (the chunk's `@@ text`), Old and
// New as Codex reads them (an empty patch line is an empty context line;
// an empty line before *** End Patch is one too), and EOF for
// `*** End of File`. An Add's content is its one hunk's New, each line
// ending with a line break. The error is Codex's own reason for rejecting
// the patch.
func ParseCodex(text string) ([]File, error) {
	ls := rustLines(strings.TrimFunc(text, unicode.IsSpace))
	body, err := codexBoundaries(ls)
	if err != nil {
		if len(ls) >= 4 && (ls[0] == "<<EOF" || ls[0] == "<<'EOF'" || ls[0] == `<<"EOF"`) && strings.HasSuffix(ls[len(ls)-1], "EOF") {
			body, err = codexBoundaries(ls[1 : len(ls)-1])
		}
		if err != nil {
			return nil, err
		}
	}
	var files []File
	line := 2
	for len(body) > 0 {
		f, n, err := codexFile(body, line)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		line += n
		body = body[n:]
	}
	return files, nil
}

// rustLines splits as Rust's str::lines: at each "\n", one "\r" before it
// dropped; no empty line after a final "\n".
func rustLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// codexBoundaries checks the envelope's first and last lines and returns
// the lines between them.
func codexBoundaries(ls []string) ([]string, error) {
	switch {
	case len(ls) == 0 || strings.TrimFunc(ls[0], unicode.IsSpace) != codexBegin:
		return nil, &Error{Line: 1, Msg: "the first line of the patch must be '*** Begin Patch'"}
	case strings.TrimFunc(ls[len(ls)-1], unicode.IsSpace) != codexEnd || len(ls) < 2:
		return nil, &Error{Line: len(ls), Msg: "the last line of the patch must be '*** End Patch'"}
	}
	return ls[1 : len(ls)-1], nil
}

// codexFile reads one file section from the start of ls (line is the
// patch line of ls[0]) and returns it with the number of lines it took.
func codexFile(ls []string, line int) (File, int, error) {
	first := strings.TrimFunc(ls[0], unicode.IsSpace)
	if path, ok := strings.CutPrefix(first, codexAdd); ok {
		h := Hunk{Line: line + 1}
		n := 1
		for _, l := range ls[1:] {
			c, ok := strings.CutPrefix(l, "+")
			if !ok {
				break
			}
			h.New = append(h.New, c)
			n++
		}
		f := File{Kind: Add, Path: path, Line: line}
		if len(h.New) > 0 {
			f.Hunks = []Hunk{h}
		}
		return f, n, nil
	}
	if path, ok := strings.CutPrefix(first, codexDelete); ok {
		return File{Kind: Delete, Path: path, Line: line}, 1, nil
	}
	path, ok := strings.CutPrefix(first, codexUpdate)
	if !ok {
		return File{}, 0, &Error{Line: line, Msg: fmt.Sprintf("'%s' is not a valid hunk header: valid hunk headers are '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", first)}
	}
	f := File{Kind: Modify, Path: path, Line: line}
	rest, n := ls[1:], 1
	if len(rest) > 0 {
		// The move line starts the line: indented, it is a context line.
		if to, ok := strings.CutPrefix(rest[0], codexMove); ok {
			if err := sameInReleases(rest[0], line+n); err != nil {
				return File{}, 0, err
			}
			f.NewPath = to
			rest, n = rest[1:], n+1
		}
	}
	if len(rest) > 0 && strings.TrimFunc(rest[0], unicode.IsSpace) == "" {
		// Codex 0.169 reads it as a first chunk's context line (which moves
		// its cursor past a blank line), later releases skip it.
		return File{}, 0, &Error{Line: line + n, Msg: "a blank line right after the file's header, which Codex releases read differently: remove it", Releases: true}
	}
	for len(rest) > 0 {
		if len(f.Hunks) > 0 && strings.TrimFunc(rest[0], unicode.IsSpace) == "" {
			// Blank lines between chunks (after *** End of File).
			rest, n = rest[1:], n+1
			continue
		}
		if strings.HasPrefix(rest[0], "*") {
			break
		}
		h, k, err := codexChunk(rest, line+n, len(f.Hunks) == 0)
		if err != nil {
			return File{}, 0, err
		}
		f.Hunks = append(f.Hunks, h)
		rest, n = rest[k:], n+k
	}
	if len(f.Hunks) == 0 {
		return File{}, 0, &Error{Line: line, Msg: fmt.Sprintf("update file hunk for path '%s' is empty", path)}
	}
	return f, n, nil
}

// sameInReleases refuses a marker line with trailing whitespace: Codex
// 0.169 drops it (an `@@ ` line with nothing after is then no @@ line at
// all, `*** End of File ` ends the file), earlier releases keep it.
func sameInReleases(l string, line int) error {
	if strings.TrimRightFunc(l, unicode.IsSpace) != l {
		return &Error{Line: line, Msg: fmt.Sprintf("the line %q ends with whitespace, which Codex releases read differently: remove it", l), Releases: true}
	}
	return nil
}

// codexChunk reads one chunk: an optional @@ line, then its lines, up to
// *** End of File or the first line that is not one of a chunk.
func codexChunk(ls []string, line int, first bool) (Hunk, int, error) {
	h := Hunk{Line: line}
	start := 0
	marker := strings.TrimRightFunc(ls[0], unicode.IsSpace)
	switch {
	case marker == codexNoContext:
		start = 1
	case strings.HasPrefix(marker, codexContext):
		h.Anchors = []string{marker[len(codexContext):]}
		start = 1
	case !first:
		return Hunk{}, 0, &Error{Line: line, Msg: fmt.Sprintf("expected update hunk to start with a @@ context marker, got: '%s'", ls[0])}
	}
	if start == 1 {
		if err := sameInReleases(ls[0], line); err != nil {
			return Hunk{}, 0, err
		}
	}
	if start >= len(ls) {
		return Hunk{}, 0, &Error{Line: line + 1, Msg: "update hunk does not contain any lines"}
	}
	n := 0
	for _, l := range ls[start:] {
		if strings.TrimRightFunc(l, unicode.IsSpace) == codexEOF {
			if err := sameInReleases(l, line+start+n); err != nil {
				return Hunk{}, 0, err
			}
			if n == 0 {
				return Hunk{}, 0, &Error{Line: line + 1, Msg: "update hunk does not contain any lines"}
			}
			h.EOF = true
			n++
			break
		}
		if l == "" {
			h.Old = append(h.Old, "")
			h.New = append(h.New, "")
			n++
			continue
		}
		switch l[0] {
		case ' ':
			h.Old = append(h.Old, l[1:])
			h.New = append(h.New, l[1:])
		case '+':
			h.New = append(h.New, l[1:])
		case '-':
			h.Old = append(h.Old, l[1:])
		default:
			if n == 0 {
				return Hunk{}, 0, &Error{Line: line + 1, Msg: fmt.Sprintf("unexpected line found in update hunk: '%s': %s", l, codexHunkFormat)}
			}
			return h, n + start, nil
		}
		n++
	}
	return h, n + start, nil
}
