package engine

import (
	"slices"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/textdoc"
)

// DialectCodex places hunks as Codex's apply_patch does (CheckParams.Dialect).
const DialectCodex = "codex"

// codexTargets are the lines Codex's apply_patch will replace for hunks
// (patch.PlaceCodex): each hunk's whole matched span, whether matched
// exactly or leniently (current releases rewrite its removed lines and
// keep the file's context lines, earlier ones rewrite it all), and for a
// hunk that only adds lines the line above them. unmatched are the hunks Codex would find no place for; why,
// when not empty, says why sightline cannot tell which lines Codex will
// change, and the change is refused as unjudged.
func codexTargets(s *textdoc.Snapshot, hunks []CheckHunk) (targets []ledger.Range, unmatched []int, why string) {
	_, crlf, cr := s.Terminators()
	if cr > 0 {
		// A lone "\r" ends a line for sightline, not for Codex: the lines
		// would be numbered differently.
		return nil, nil, "the file has a line ending in a lone carriage return, which Codex's apply_patch does not count as a line break, so sightline cannot number the lines it would change; make this change with sightline's own edit tools instead"
	}
	hs := make([]patch.Hunk, len(hunks))
	for i, h := range hunks {
		hs[i] = patch.Hunk{Old: h.Old, New: h.New, Anchors: h.Anchors, EOF: h.EOF, Line: i + 1}
	}
	text := s.Text()
	rs, fail := patch.PlaceCodex(patch.CodexLines(text, false), hs)
	if crlf > 0 {
		// Codex releases differ in whether a line keeps the "\r" of its
		// "\r\n" while they search; where that changes the place, no
		// reading is the one Codex will make.
		rs2, fail2 := patch.PlaceCodex(patch.CodexLines(text, true), hs)
		if !samePlaces(rs, rs2) || (fail == nil) != (fail2 == nil) || fail != nil && fail.Hunk != fail2.Hunk {
			return nil, nil, "the file has CRLF line breaks, and Codex releases place these hunks in it differently (with or without the carriage return), so sightline cannot tell which lines the patch would change; give each hunk context lines that occur once in the file"
		}
	}
	if fail != nil {
		if fail.Kind == "not_found" {
			return nil, []int{fail.Hunk}, ""
		}
		return nil, nil, fail.Err.Message
	}
	lines := patch.CodexLines(text, false)
	for _, r := range rs {
		switch {
		case r.Old > 0:
			targets = append(targets, ledger.Range{Start: r.Start + 1, End: r.Start + r.Old})
		case r.Append && r.Start >= 2 && lines[r.Start-1] == "":
			// Releases differ on which side of a last empty line the
			// lines go: the lines above both places.
			targets = append(targets, ledger.Range{Start: r.Start - 1, End: r.Start})
		case r.Start >= 1:
			targets = append(targets, ledger.Range{Start: r.Start, End: r.Start})
		}
	}
	return targets, nil, ""
}

func samePlaces(a, b []patch.Replacement) bool {
	return slices.EqualFunc(a, b, func(x, y patch.Replacement) bool {
		return x.Hunk == y.Hunk && x.Start == y.Start && x.Old == y.Old
	})
}
