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

// wholeRead is the result of a whole read of a file of n lines.
func wholeRead(n int) engine.ReadResult {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "%d:abcd|\tx%d := compute(a, \"b\") + %d // é\n", i+1, i, i)
	}
	v := int32(3)
	return engine.ReadResult{
		Outcome: engine.Outcome{OK: true, Warnings: []string{"w"}},
		URI:     "file:///w/f.go", Path: "f.go", Content: sb.String(),
		Range: &ledger.Range{Start: 1, End: n}, TotalLines: n, Version: &v,
	}
}

// A caller decodes an answer it got through the bridge, whole or with its
// content apart, into what the call run in its own process would have
// returned.
func TestResultDecodesWhatWasEncoded(t *testing.T) {
	want := wholeRead(300)
	b, err := result.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	rest, text, err := result.MarshalApart(want)
	if err != nil || text == "" {
		t.Fatalf("apart: %q %v", text, err)
	}
	for _, c := range []struct {
		b    []byte
		text string
	}{{b, ""}, {rest, text}} {
		got, err := Read.Result(c.b, c.text)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %+v, want %+v", got, want)
		}
	}
	var back engine.ReadResult
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("encoding/json decodes %+v (%v)", back, err)
	}
}

// BenchmarkResultWholeRead is the caller's decode of a whole read's answer
// (200,000 lines, about 9 MB), its share of a whole read through the
// bridge: whole, as a server of an earlier build sends it, and with its
// content apart.
func BenchmarkResultWholeRead(b *testing.B) {
	r := wholeRead(200000)
	whole, _ := result.Marshal(r)
	rest, text, _ := result.MarshalApart(r)
	for _, c := range []struct {
		name string
		b    []byte
		text string
	}{{"whole", whole, ""}, {"apart", rest, text}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(whole)))
			b.ReportAllocs()
			for range b.N {
				if _, err := Read.Result(c.b, c.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
