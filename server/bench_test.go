package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

// BenchmarkReadPipe2000: sightline/read of 2,000 lines through the whole LSP
// stack over an in-process pipe (the stdio variant lives in cmd/sightline).
func BenchmarkReadPipe2000(b *testing.B) {
	var src strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&src, "\tresult = append(result, compute(%d, input[%d])) // line %d\n", i, i, i)
	}
	root := b.TempDir()
	e := lsptest.Start(b, lsptest.Options{Root: root, Server: serverOpts(b)})
	u := "file://" + root + "/big.go"
	e.Open(u, "go", src.String())
	p := map[string]any{"textDocument": map[string]string{"uri": u}, "budget": map[string]int{"chars": 1 << 20}}
	var res engine.ReadResult
	for b.Loop() {
		if err := e.Call("sightline/read", p, &res); err != nil || !res.OK {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditRoundTrip10k: sightline/edit on a 10,000-line open document,
// request to answer, including the workspace/applyEdit round trip to the
// editor and its didChange (target p99 ≤ 10 ms).
func BenchmarkEditRoundTrip10k(b *testing.B) { benchEditRoundTrip(b, 10_000) }

// BenchmarkEditRoundTrip200k is the same on a 200,000-line document: what
// grows with the file (the answer's file hash, the editor's own apply).
func BenchmarkEditRoundTrip200k(b *testing.B) { benchEditRoundTrip(b, 200_000) }

func benchEditRoundTrip(b *testing.B, n int) {
	var src strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&src, "\tvalue%d := compute(%d) // line\n", i, i)
	}
	root := b.TempDir()
	e := lsptest.Start(b, lsptest.Options{Root: root, Server: serverOpts(b)})
	u := "file://" + root + "/big.go"
	e.Open(u, "go", src.String())
	var rr engine.ReadResult
	if err := e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}, "budget": map[string]int{"chars": 1 << 22}}, &rr); err != nil || !rr.OK {
		b.Fatal(err, rr.Message)
	}
	content := "\tvalue4999 := compute(4999) // line"
	var times []time.Duration
	i := 0
	for b.Loop() {
		i++
		next := fmt.Sprintf("\tvalue4999 := compute(%d) // edited", i)
		p := map[string]any{"textDocument": map[string]string{"uri": u}, "edits": []map[string]any{
			{"type": "replace_line", "ref": "5000:" + hashOf(content), "new_content": next},
		}}
		var res engine.EditResult
		t0 := time.Now()
		if err := e.Call("sightline/edit", p, &res); err != nil || !res.OK {
			b.Fatalf("edit %d: %v %+v", i, err, res.Outcome)
		}
		times = append(times, time.Since(t0))
		content = next
	}
	slices.Sort(times)
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(times[min(len(times)-1, len(times)*99/100)].Microseconds()), "p99-µs")
	}
}

// BenchmarkFullTextChange1MB is what an editor that syncs whole documents
// costs per keystroke on a 1 MB document: the didChange with the whole text
// (its line diff, the ledger shift, the server's own collection every few
// megabytes), the in-process client's encoding of the message included.
func BenchmarkFullTextChange1MB(b *testing.B) {
	root := b.TempDir()
	e := lsptest.Start(b, lsptest.Options{Root: root, Server: server.Options{NoPersist: true}})
	ls := make([]string, 25000)
	for i := range ls {
		ls[i] = fmt.Sprintf("\tvalue_%06d := compute(%d, %d) // x\n", i, i, i*7)
	}
	u := "file://" + root + "/big.go"
	e.Open(u, "go", strings.Join(ls, ""))
	var out any
	e.Call("sightline/ledger", nil, &out)
	v := 0
	for b.Loop() {
		v++
		i := (v * 37) % len(ls)
		ls[i] = fmt.Sprintf("\tvalue_%06d := compute(%d, %d) // edited %d\n", i, i, i*7, v)
		e.ReplaceAll(u, strings.Join(ls, ""))
	}
	e.Call("sightline/ledger", nil, &out) // every change applied
}
