package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

// An agent reading one document a line at a time, every other line, makes
// one more unread range with each read. What the editor is sent after a read
// must not grow with the reads before it: the diagnostics are a bounded
// number per document and the coverage says what changed. Nor may the read's
// own answer, whose ledger carries a bounded number of ranges.
func TestPublishedBytesPerReadDoNotGrow(t *testing.T) {
	reads := 600
	if raceOn {
		reads = 250 // still more than 100 unread ranges, and two windows of 100 reads
	}
	var src strings.Builder
	for i := range 2*reads + 1 {
		fmt.Fprintf(&src, "\tvalue%d := compute(%d)\n", i, i)
	}
	root := t.TempDir()
	opts := serverOpts(t)
	opts.Debounce = 1 // every read is published before the next
	e := lsptest.Start(t, lsptest.Options{Root: root, Server: opts})
	u := "file://" + root + "/a.go"
	e.Open(u, "go", src.String())

	perRead := make([]int, reads) // bytes of notifications read i set off
	answer := make([]int, reads)  // bytes of read i's answer
	for i := range reads {
		before := len(e.Notes())
		line := 2*i + 1
		var raw json.RawMessage
		var rr engine.ReadResult
		if err := e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}, "range": map[string]int{"start": line, "end": line}}, &raw); err != nil || json.Unmarshal(raw, &rr) != nil || !rr.OK {
			t.Fatalf("read %d: %v %s", line, err, raw)
		}
		answer[i] = len(raw)
		// Each read changes both the diagnostics and the coverage.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Microsecond) {
			var dia, cov bool
			for _, note := range e.Notes()[before:] {
				dia = dia || note.Method == "textDocument/publishDiagnostics"
				cov = cov || note.Method == "sightline/coverage"
			}
			if dia && cov {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("read of line %d: no diagnostics and coverage published", line)
			}
		}
		for _, note := range e.Notes()[before:] {
			perRead[i] += len(note.Params)
		}
	}
	sum := func(xs []int) int {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	}
	first, last := sum(perRead[:100]), sum(perRead[reads-100:])
	t.Logf("notification bytes per read: first 100 reads %d, last 100 reads %d", first/100, last/100)
	if last > first*3/2 {
		t.Errorf("notification bytes per read grew with the session: %d per read over the first 100 reads, %d over the last 100", first/100, last/100)
	}
	// The changes add up to the whole: every line read, one range each.
	e.WaitCoverage(u, func(raw json.RawMessage) bool {
		var c engine.CoverageParams
		return json.Unmarshal(raw, &c) == nil && len(c.Read) == reads && c.Read[reads-1] == ledger.Range{Start: 2*reads - 1, End: 2*reads - 1}
	})
	first, last = sum(answer[:100]), sum(answer[reads-100:])
	t.Logf("answer bytes per read: first 100 reads %d, last 100 reads %d", first/100, last/100)
	if last > first*3/2 {
		t.Errorf("a one-line read's answer grew with the session: %d bytes per read over the first 100 reads, %d over the last 100", first/100, last/100)
	}
	if n := len(e.Diagnostics(u)); n > 100 {
		t.Errorf("%d diagnostics for one document, want at most 100", n)
	}
}
