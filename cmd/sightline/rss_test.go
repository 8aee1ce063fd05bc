package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/server"
)

// The memory benchmarks of docs/performance.md: `sightline serve` as editors
// run it, driven over stdio, its resident memory read from /proc. They take
// a minute and need Linux, so they run only when asked:
//
//	SIGHTLINE_RSS=1 go test -run TestRSS -v ./cmd/sightline/
func TestRSS(t *testing.T) {
	if os.Getenv("SIGHTLINE_RSS") == "" {
		t.Skip("set SIGHTLINE_RSS=1 to measure resident memory")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	bin := buildBinary(t)
	t.Run("full-text changes", func(t *testing.T) {
		p := startServe(t, bin)
		// The base footprint is the server's after it has run the same code
		// on a small document (opened, changed by full text, closed): the
		// binary's pages that code touches, and the runtime's first heap
		// arenas and metadata, are not memory the document holds.
		warm := p.uri("warm.go")
		small := doc1MB()[:500]
		p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": warm, "languageId": "go", "version": 1, "text": strings.Join(small, "")}})
		for v := 2; v <= 50; v++ {
			small[v] = fmt.Sprintf("\tchanged %d\n", v)
			p.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": warm, "version": v},
				"contentChanges": []any{map[string]any{"text": strings.Join(small, "")}}})
		}
		p.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": warm}})
		p.call("sightline/ledger", nil)
		base := p.settledRSS()
		baseParts := p.rssParts()
		ls := doc1MB()
		u := p.uri("big.go")
		p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": strings.Join(ls, "")}})
		size := len(strings.Join(ls, ""))
		for v := 2; v <= 1001; v++ {
			i := (v * 37) % len(ls)
			ls[i] = fmt.Sprintf("\tvalue_%06d := compute(%d, %d) // edited %d\n", i, i, i*7, v)
			p.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": v},
				"contentChanges": []any{map[string]any{"text": strings.Join(ls, "")}}})
		}
		p.call("sightline/ledger", nil) // the changes are processed in order before it
		rss := p.settledRSS()
		t.Logf("1,000 full-text changes of a %.1f MB document: RSS %.1f MB over a base of %.1f MB (%.2fx the document; %s)",
			mb(size), mb(rss-base), mb(base), float64(rss-base)/float64(size), p.split(baseParts))
		// The goal is 3x: 2.78x-3.03x measured (median 2.9x) once the
		// server collected every 4 MB of full-text changes; 500x before the
		// diff, 5x-10x before that collection. Runs spread by about 0.2x, so
		// the test fails only clearly above the goal.
		if rss-base > 13*size/4 {
			t.Errorf("RSS grew %.1f MB: over 3.25x the document", mb(rss-base))
		}
	})
	t.Run("1,000 open documents", func(t *testing.T) {
		p := startServe(t, bin)
		base := p.settledRSS()
		baseParts := p.rssParts()
		total := 0
		doc := strings.Repeat("func f() { return strings.Repeat(\"x\", 100) } // 64 bytes..\n", 1600) // 100 KB
		for i := 0; i < 1000; i++ {
			text := fmt.Sprintf("// document %d\n", i) + doc
			total += len(text)
			p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": p.uri(fmt.Sprintf("d%04d.go", i)), "languageId": "go", "version": 1, "text": text}})
		}
		p.call("sightline/ledger", nil)
		rss := p.settledRSS()
		t.Logf("1,000 open documents, %.1f MB of text: RSS %.1f MB over a base of %.1f MB (%.2fx the text; %s)", mb(total), mb(rss-base), mb(base), float64(rss-base)/float64(total), p.split(baseParts))
		// The goal is 2.5x (1.8x measured; 2.9x while the decoded URI
		// kept a copy of the whole didOpen message alive).
		if rss-base > 5*total/2 {
			t.Errorf("RSS grew %.1f MB: over 2.5x the text", mb(rss-base))
		}
	})
	t.Run("cancelled reads of a 50 MB file", func(t *testing.T) {
		p := startServe(t, bin)
		line := strings.Repeat("y", 63) + "\n"
		os.WriteFile(filepath.Join(p.root, "huge.txt"), []byte(strings.Repeat(line, 50<<20/64)), 0o644)
		base := p.settledRSS()
		u := p.uri("huge.txt")
		for i := 0; i < 2000; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%5)*time.Millisecond)
			var out any
			p.conn.Call(ctx, "sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}, "range": map[string]int{"start": 1 + i*100, "end": 1 + i*100 + 200}}, &out)
			cancel()
		}
		p.call("sightline/ledger", nil)
		peak := p.rss()
		rss := p.settledRSS()
		t.Logf("2,000 cancelled reads of a 50 MB file: RSS %.1f MB at the end, %.1f MB after idling (base %.1f MB)", mb(peak), mb(rss), mb(base))
		if rss-base > 4*(50<<20) {
			t.Errorf("RSS after idling %.1f MB over base", mb(rss-base))
		}
	})
}

func mb(n int) float64 { return float64(n) / (1 << 20) }

func doc1MB() []string {
	ls := make([]string, 25000)
	for i := range ls {
		ls[i] = fmt.Sprintf("\tvalue_%06d := compute(%d, %d) // x\n", i, i, i*7)
	}
	return ls
}

type served struct {
	t    *testing.T
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	root string
}

type pipes struct {
	io.Reader
	io.WriteCloser
}

func startServe(t *testing.T, bin string) *served {
	root := t.TempDir()
	cmd := exec.Command(bin, "serve", "--state-dir", t.TempDir())
	cmd.Dir = root
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipes{out, in}), jsonrpc2.WithCodec(server.Codec()))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		return nil, nil
	})
	p := &served{t: t, cmd: cmd, conn: conn, root: root}
	t.Cleanup(func() {
		p.call("shutdown", nil)
		_ = conn.Notify(context.Background(), "exit", nil)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
		}
	})
	p.call("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}, "rootUri": string(uri.File(root))})
	p.notify("initialized", map[string]any{})
	return p
}

func (p *served) uri(name string) string { return string(uri.File(filepath.Join(p.root, name))) }

func (p *served) call(method string, params any) {
	p.t.Helper()
	var out any
	if _, err := p.conn.Call(context.Background(), method, params, &out); err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
}

func (p *served) notify(method string, params any) {
	p.t.Helper()
	if err := p.conn.Notify(context.Background(), method, params); err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
}

// split says how much of the growth since base is anonymous memory (the
// heap, stacks, runtime metadata) and how much pages of the binary (code and
// data touched for the first time: counted in RSS, but shared and clean).
func (p *served) split(base [2]int) string {
	return fmt.Sprintf("anonymous +%.1f MB, file +%.1f MB",
		mb(p.rssOf("RssAnon:")-base[0]), mb(p.rssOf("RssFile:")-base[1]))
}

// rssParts reads the anonymous and file-backed parts of the RSS.
func (p *served) rssParts() [2]int { return [2]int{p.rssOf("RssAnon:"), p.rssOf("RssFile:")} }

// rss reads the server's resident set size in bytes.
func (p *served) rss() int { return p.rssOf("VmRSS:") }

// rssOf reads a field of /proc/<pid>/status given in kB, in bytes.
func (p *served) rssOf(field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		p.t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb << 10
		}
	}
	p.t.Fatalf("no %s in /proc/%d/status", field, p.cmd.Process.Pid)
	return 0
}

// settledRSS is the RSS after the server has been idle long enough to
// release what it no longer needs.
func (p *served) settledRSS() int {
	time.Sleep(3500 * time.Millisecond)
	return p.rss()
}
