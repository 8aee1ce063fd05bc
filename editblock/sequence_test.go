package editblock

import "github.com/sightline-lsp/sightline/hashline"

// Outcome is what one block of a sequence did.
type Outcome struct {
	Index int // the block's Index
	// Match and Diag as MatchBlock returned them against Before; a failed
	// block (Diag != nil) changes nothing.
	Match Match
	Diag  *Diagnostic
	// Before is the text the block was matched against; Text is the text
	// after it (Before's text again when it failed or was a no-op).
	Before hashline.Source
	Text   string
}

// Applied reports whether the block changed the text.
func (o Outcome) Applied() bool { return o.Diag == nil && !o.Match.NoOp }

// Diff is the unified diff of the block's change ("" when none).
func (o Outcome) Diff(name string, context int) string {
	if !o.Applied() {
		return ""
	}
	return hashline.UnifiedDiff(name, o.Before, o.Match.Plan.Splices, context)
}

// ApplySequence applies blocks for one file in order, each against the
// text the previous ones left (the protocol's rule: a later block's anchor
// must match the file after the earlier blocks). A failed block is skipped
// and the next one sees the text without it, as on disk after a partial
// failure. It is pure: src is not modified.
//
// It suits dry runs and tests. A caller that guards every block against a
// ledger applies them one at a time instead: MatchBlock against the current
// snapshot, guard Start-End, apply Match.Plan, and pass the new snapshot to
// the next block. Each step renders the whole text, O(file) per block.
func ApplySequence(src hashline.Source, blocks []Block, dominant string) []Outcome {
	out := make([]Outcome, 0, len(blocks))
	cur := src
	text := render(src, nil)
	for _, b := range blocks {
		o := Outcome{Index: b.Index, Before: cur, Text: text}
		o.Match, o.Diag = MatchBlock(cur, b, dominant)
		if o.Applied() {
			text = render(cur, []hashline.Splice{o.Match.Splice})
			cur = hashline.TextSource(text)
			o.Text = text
		}
		out = append(out, o)
	}
	return out
}
