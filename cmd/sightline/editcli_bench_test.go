package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/hashline"
)

// stdlibLines returns n lines of Go from the standard library.
func stdlibLines(tb testing.TB, n int) []string {
	tb.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= n {
			return fs.SkipAll
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return fs.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		ls := strings.SplitAfter(string(b), "\n")
		if ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		out = append(out, ls...)
		return nil
	})
	if len(out) < n {
		tb.Skipf("only %d lines of Go in GOROOT", len(out))
	}
	return out[:n]
}

// BenchmarkCLIEdit200k runs the CLI's edit command in process (no process
// start) on a 200,000-line file on disk: what a one-line `sightline edit`
// costs beyond starting the binary.
func BenchmarkCLIEdit200k(b *testing.B) {
	src := stdlibLines(b, 200_000)
	ws := b.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	b.Setenv("XDG_STATE_HOME", filepath.Join(b.TempDir(), "state"))
	b.Setenv("SIGHTLINE_NO_BRIDGE", "1")
	f := filepath.Join(ws, "big.go")
	if err := os.WriteFile(f, []byte(strings.Join(src, "")), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Chdir(ws)
	var out, errb bytes.Buffer
	if rc := run([]string{"read", "big.go:95-105"}, nil, &out, &errb); rc != 0 {
		b.Fatalf("read: %d %s", rc, errb.String())
	}
	time.Sleep(2100 * time.Millisecond) // past the stat cache's settling window
	line := strings.TrimRight(src[99], "\n")
	alt := []string{line, "// bench edit"}
	edits := filepath.Join(b.TempDir(), "edits.json")
	b.ResetTimer()
	for i := range b.N {
		raw, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("100:%s", hashline.Hash(alt[i%2])), "new_content": alt[(i+1)%2]}})
		os.WriteFile(edits, raw, 0o644)
		out.Reset()
		errb.Reset()
		if rc := run([]string{"edit", "big.go", "--edits", edits}, nil, &out, &errb); rc != 0 {
			b.Fatalf("edit %d: rc %d %s %s", i, rc, out.String(), errb.String())
		}
	}
}

// BenchmarkCLIApply200k is BenchmarkCLIEdit200k for one edit block on
// standard input (sightline apply).
func BenchmarkCLIApply200k(b *testing.B) {
	src := stdlibLines(b, 200_000)
	ws := b.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	b.Setenv("XDG_STATE_HOME", filepath.Join(b.TempDir(), "state"))
	b.Setenv("SIGHTLINE_NO_BRIDGE", "1")
	src[99] = "// marker 0\n"
	if err := os.WriteFile(filepath.Join(ws, "big.go"), []byte(strings.Join(src, "")), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Chdir(ws)
	var out, errb bytes.Buffer
	if rc := run([]string{"read", "big.go:95-105"}, nil, &out, &errb); rc != 0 {
		b.Fatalf("read: %d %s", rc, errb.String())
	}
	time.Sleep(2100 * time.Millisecond)
	b.ResetTimer()
	for i := range b.N {
		block := fmt.Sprintf("big.go\n<<<< EDIT\n// marker %d\n==== REPLACE\n// marker %d\n>>>> EDIT END\n", i, i+1)
		out.Reset()
		errb.Reset()
		if rc := run([]string{"apply"}, strings.NewReader(block), &out, &errb); rc != 0 || !strings.Contains(out.String()+errb.String(), "applied") {
			b.Fatalf("apply %d: rc %d %s %s", i, rc, out.String(), errb.String())
		}
	}
}
