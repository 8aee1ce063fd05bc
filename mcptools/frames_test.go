package mcptools

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestFilterOverlongLine: a line over the bound is answered and skipped, and
// the lines around it pass.
func TestFilterOverlongLine(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 200<<10) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	var answers bytes.Buffer
	r, _ := Filter(strings.NewReader(in), &answers, 200<<10)
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(passed); got != `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n" {
		t.Fatalf("passed: %.200q", got)
	}
	if !strings.Contains(answers.String(), `"code":-32600`) || strings.Count(answers.String(), "\n") != 1 {
		t.Fatalf("answers: %s", answers.String())
	}
}

// BenchmarkPassLargeWrite: the filter's checks of one message, the largest
// sightline_write the protocol takes (16 MiB of content in one line).
func BenchmarkPassLargeWrite(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sightline_write","arguments":{"path":"big.txt","mode":"create","content":"` +
		strings.Repeat(`line of text \"quoted\"\n`, (16<<20)/24) + `"}}}`)
	msg = append(msg, '\n')[:len(msg)] // room for the newline pass appends
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := pass(msg, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
