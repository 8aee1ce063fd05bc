package engine

import (
	"strings"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/textdoc"
)

// The matchers read line 1 of a file without its byte-order mark, as reads
// show it, and the plan keeps the mark on whatever line becomes the first.
// A diff of the file's bytes (git's) writes the mark as part of line 1: a
// hunk or block whose first old line carries it means line 1 with its mark.
// The mark is taken off that line (and off the first new line, which then
// carries it too) when the file has one; a change that adds or drops the
// mark is left as written (and does not match).

// markless returns old and new without the byte-order mark of their first
// lines, when the file's line 1 has one and both carry it (or new is empty).
func markless(s *textdoc.Snapshot, old, new []string) ([]string, []string, bool) {
	if len(old) == 0 || !strings.HasPrefix(old[0], hashline.BOM) || !strings.HasPrefix(firstContent(s), hashline.BOM) {
		return old, new, false
	}
	if len(new) > 0 && !strings.HasPrefix(new[0], hashline.BOM) {
		return old, new, false
	}
	old = append([]string{strings.TrimPrefix(old[0], hashline.BOM)}, old[1:]...)
	if len(new) > 0 {
		new = append([]string{strings.TrimPrefix(new[0], hashline.BOM)}, new[1:]...)
	}
	return old, new, true
}

// marklessFile is f with its hunks markless against s.
func marklessFile(s *textdoc.Snapshot, f patch.File) patch.File {
	var hunks []patch.Hunk
	for i, h := range f.Hunks {
		old, new, ok := markless(s, h.Old, h.New)
		if !ok {
			continue
		}
		if hunks == nil {
			hunks = append([]patch.Hunk(nil), f.Hunks...)
		}
		hunks[i].Old, hunks[i].New = old, new
	}
	if hunks != nil {
		f.Hunks = hunks
	}
	return f
}
