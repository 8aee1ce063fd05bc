package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/internal/gosrc"
)

// cliBench makes a workspace holding big.go (src joined), with its own
// state folder and no server to hand calls to, moves into it and reads
// lines 95-105 once, as an agent does before it edits. out and errb are
// the commands' outputs, for the benchmark to reuse.
func cliBench(b *testing.B, src []string) (out, errb *bytes.Buffer) {
	ws := b.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	b.Setenv("XDG_STATE_HOME", filepath.Join(b.TempDir(), "state"))
	b.Setenv("SIGHTLINE_NO_BRIDGE", "1")
	if err := os.WriteFile(filepath.Join(ws, "big.go"), []byte(strings.Join(src, "")), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Chdir(ws)
	out, errb = &bytes.Buffer{}, &bytes.Buffer{}
	if rc := run([]string{"read", "big.go:95-105"}, nil, out, errb); rc != 0 {
		b.Fatalf("read: %d %s", rc, errb.String())
	}
	time.Sleep(2100 * time.Millisecond) // past the stat cache's settling window
	return out, errb
}

func stdlib200k(b *testing.B) []string {
	src, err := gosrc.Lines(200_000)
	if err != nil {
		b.Skip(err)
	}
	return src
}

// BenchmarkCLIEdit200k runs the CLI's edit command in process (no process
// start) on a 200,000-line file on disk: what a one-line `sightline edit`
// costs beyond starting the binary.
func BenchmarkCLIEdit200k(b *testing.B) {
	src := stdlib200k(b)
	out, errb := cliBench(b, src)
	line := strings.TrimRight(src[99], "\n")
	alt := []string{line, "// bench edit"}
	edits := filepath.Join(b.TempDir(), "edits.json")
	b.ResetTimer()
	for i := range b.N {
		raw, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("100:%s", hashline.Hash(alt[i%2])), "new_content": alt[(i+1)%2]}})
		os.WriteFile(edits, raw, 0o644)
		out.Reset()
		errb.Reset()
		if rc := run([]string{"edit", "big.go", "--edits", edits}, nil, out, errb); rc != 0 {
			b.Fatalf("edit %d: rc %d %s %s", i, rc, out.String(), errb.String())
		}
	}
}

// BenchmarkCLIApply200k is BenchmarkCLIEdit200k for one edit block on
// standard input (sightline apply).
func BenchmarkCLIApply200k(b *testing.B) {
	src := stdlib200k(b)
	src[99] = "// marker 0\n"
	out, errb := cliBench(b, src)
	b.ResetTimer()
	for i := range b.N {
		block := fmt.Sprintf("big.go\n<<<< EDIT\n// marker %d\n==== REPLACE\n// marker %d\n>>>> EDIT END\n", i, i+1)
		out.Reset()
		errb.Reset()
		if rc := run([]string{"apply"}, strings.NewReader(block), out, errb); rc != 0 || !strings.Contains(out.String()+errb.String(), "applied") {
			b.Fatalf("apply %d: rc %d %s %s", i, rc, out.String(), errb.String())
		}
	}
}

// BenchmarkCLIReadRange200k runs `sightline read big.go:100-109` in process
// on a 200,000-line file: the CLI's most frequent call beyond starting the
// binary.
func BenchmarkCLIReadRange200k(b *testing.B) {
	out, errb := cliBench(b, stdlib200k(b))
	// Read again now the file is old enough for its stat to be kept, as an
	// agent's files are: the calls below find it in the stat cache.
	if rc := run([]string{"read", "big.go:95-105"}, nil, out, errb); rc != 0 {
		b.Fatalf("read: %d %s", rc, errb.String())
	}
	b.ResetTimer()
	for i := range b.N {
		out.Reset()
		errb.Reset()
		if rc := run([]string{"read", "big.go:100-109"}, nil, out, errb); rc != 0 {
			b.Fatalf("read %d: rc %d %s", i, rc, errb.String())
		}
	}
}

// BenchmarkCLILedger runs `sightline ledger` in process after a read of a
// 200,000-line file.
func BenchmarkCLILedger(b *testing.B) {
	out, errb := cliBench(b, stdlib200k(b))
	// Read again now the file is old enough for its stat to be kept, as an
	// agent's files are: the calls below find it in the stat cache.
	if rc := run([]string{"read", "big.go:95-105"}, nil, out, errb); rc != 0 {
		b.Fatalf("read: %d %s", rc, errb.String())
	}
	b.ResetTimer()
	for i := range b.N {
		out.Reset()
		errb.Reset()
		if rc := run([]string{"ledger"}, nil, out, errb); rc != 0 {
			b.Fatalf("ledger %d: rc %d %s", i, rc, errb.String())
		}
	}
}
