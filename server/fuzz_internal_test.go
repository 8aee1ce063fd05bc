package server

import (
	"encoding/json"
	"testing"

	"github.com/sightline-lsp/sightline/textdoc"
)

// FuzzDidChange: whatever the params, decodeDidChange either names a problem
// (and the change is not applied) or gives changes that apply to a document
// without panicking; a negative or oversized position is always a problem,
// never a whole-document change.
func FuzzDidChange(f *testing.F) {
	for _, s := range []string{
		`{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"text":"x"}]}`,
		`{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"text":"whole\n"}]}`,
		`{"textDocument":{"uri":"file:///a","version":null},"contentChanges":[{"text":"x"}]}`,
		`{"textDocument":{"uri":"file:///a","version":1099511627776},"contentChanges":[]}`,
		`{"textDocument":{"uri":"file:///a","version":3},"contentChanges":[{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":"x"}]}`,
		`{"textDocument":{"uri":"file:///a","version":3},"contentChanges":[{"range":{"start":{"line":1.5,"character":0},"end":{"line":0,"character":0}},"text":"x"}]}`,
		`{"textDocument":{"uri":"file:///a"`,
	} {
		f.Add(s, "one\ntwo\r\nthree")
	}
	f.Fuzz(func(t *testing.T, params, text string) {
		uri, _, changes, problem := decodeDidChange(json.RawMessage(params))
		if problem != "" {
			if changes != nil {
				t.Fatalf("a problem (%s) with changes %v", problem, changes)
			}
			return
		}
		if uri == "" {
			return // didChange refuses it: no document to apply it to
		}
		var raw struct {
			ContentChanges []map[string]json.RawMessage `json:"contentChanges"`
		}
		if json.Unmarshal([]byte(params), &raw) == nil {
			for i, c := range raw.ContentChanges {
				if r, ok := c["range"]; ok && string(r) != "null" && changes[i].Range == nil {
					t.Fatalf("change %d has a range but decoded as a whole-document change: %s", i, params)
				}
			}
		}
		s := textdoc.New(text)
		for _, enc := range []textdoc.Encoding{textdoc.UTF8, textdoc.UTF16} {
			_, _, _ = s.Apply(changes, enc) // must not panic; range errors are reported
		}
	})
}
