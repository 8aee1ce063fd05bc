package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/lsptest"
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
	var res handlers.ReadResult
	for b.Loop() {
		if err := e.Call("sightline/read", p, &res); err != nil || !res.OK {
			b.Fatal(err)
		}
	}
}
