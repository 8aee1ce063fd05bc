package ops

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
)

// wholeRead is the answer to a whole read of a file of n lines, as a
// server encodes it for the bridge.
func wholeRead(tb testing.TB, n int) []byte {
	tb.Helper()
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "%d:abcd|\tx%d := compute(a, \"b\") + %d // é\n", i+1, i, i)
	}
	v := int32(3)
	b, err := result.Marshal(engine.ReadResult{
		Outcome: engine.Outcome{OK: true, Warnings: []string{"w"}},
		URI:     "file:///w/f.go", Path: "f.go", Content: sb.String(),
		Range: &ledger.Range{Start: 1, End: n}, TotalLines: n, Version: &v,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// A caller decodes an answer it got through the bridge into what the call
// run in its own process would have returned.
func TestResultDecodesWhatWasEncoded(t *testing.T) {
	b := wholeRead(t, 300)
	got, err := Read.Op.Result(b)
	if err != nil {
		t.Fatal(err)
	}
	var want engine.ReadResult
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
}

// BenchmarkResultWholeRead is the caller's decode of a whole read's answer
// (200,000 lines, about 9 MB), its share of a whole read through the bridge.
func BenchmarkResultWholeRead(b *testing.B) {
	data := wholeRead(b, 200000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Read.Op.Result(data); err != nil {
			b.Fatal(err)
		}
	}
}
