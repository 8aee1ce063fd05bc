package lsptest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// BufferEditor is an in-process editor for engine.Env (no connection): it
// applies workspace/applyEdit as LSP says: all
// edits of the list refer to the text before any of them. It computes the
// new text from byte offsets of that original text on its own, then reports
// the edit back as editors do, one didChange event with the edits last first
// (so each range is still valid when the server applies it).
type BufferEditor struct {
	WS *workspace.Workspace
	// Fast skips the independent rebuild of the text (O(file) per edit), for
	// benchmarks that measure the server.
	Fast bool
}

// Encoding is utf-8: the editor and the workspace share byte offsets.
func (l *BufferEditor) Encoding() textdoc.Encoding { return textdoc.UTF8 }

// ApplyEdits checks every version before applying any document.
func (l *BufferEditor) ApplyEdits(ctx context.Context, edits []engine.DocEdit) (bool, string, error) {
	for _, de := range edits {
		if d, err := l.WS.Lookup(de.URI); err != nil || d.Version != de.Version {
			return false, "version moved", nil
		}
	}
	for _, de := range edits {
		if ok, why, err := l.ApplyEdit(ctx, de.URI, de.Version, de.Changes, ""); !ok || err != nil {
			return ok, why, err
		}
	}
	return true, "", nil
}

// ApplyEdit applies one document's edits, all against its text at version.
func (l *BufferEditor) ApplyEdit(ctx context.Context, uri string, version int32, changes []textdoc.Change, label string) (bool, string, error) {
	d, err := l.WS.Lookup(uri)
	if err != nil || d.Version != version {
		return false, "version moved", nil
	}
	if l.Fast {
		rev := slices.Clone(changes)
		slices.Reverse(rev)
		_, err := l.WS.Change(uri, version+1, rev, textdoc.UTF8, "")
		return err == nil, "", err
	}
	orig := d.Snap.Text()
	type span struct {
		from, to int
		text     string
	}
	spans := make([]span, len(changes))
	for i, c := range changes {
		spans[i] = span{offsetOf(orig, int(c.Range.Start.Line), int(c.Range.Start.Char), "utf-8"), offsetOf(orig, int(c.Range.End.Line), int(c.Range.End.Char), "utf-8"), c.Text}
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.from - b.from })
	for i := 1; i < len(spans); i++ {
		if spans[i].from < spans[i-1].to {
			return false, "overlapping edits", nil
		}
	}
	var b strings.Builder
	pos := 0
	for _, sp := range spans {
		b.WriteString(orig[pos:sp.from])
		b.WriteString(sp.text)
		pos = sp.to
	}
	b.WriteString(orig[pos:])
	want := b.String()
	rev := slices.Clone(changes)
	slices.Reverse(rev)
	after, err := l.WS.Change(uri, version+1, rev, textdoc.UTF8, "")
	if err != nil {
		return false, "", err
	}
	if after.Snap.Text() != want {
		return false, "", fmt.Errorf("the editor's text and the server's differ after the edit")
	}
	return true, "", nil
}
