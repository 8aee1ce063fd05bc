package server_test

import (
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

// start runs a server over a fresh workspace holding files.
func start(t *testing.T, files map[string]string, o lsptest.Options) (*lsptest.Editor, string) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o.Root = root
	if o.Server.StateDir == "" {
		o.Server.StateDir = filepath.Join(t.TempDir(), "state")
	}
	return lsptest.Start(t, o), root
}

func fileURI(root, name string) string { return string(uri.File(filepath.Join(root, name))) }

func read(t *testing.T, e *lsptest.Editor, u string, rng *ledger.Range, extra map[string]any) engine.ReadResult {
	t.Helper()
	p := map[string]any{"textDocument": map[string]string{"uri": u}}
	if rng != nil {
		p["range"] = rng
	}
	for k, v := range extra {
		p[k] = v
	}
	var res engine.ReadResult
	if err := e.Call("sightline/read", p, &res); err != nil {
		t.Fatalf("sightline/read: %v", err)
	}
	return res
}

func goSource(n int) string {
	var b strings.Builder
	b.WriteString("package demo\n\n")
	for i := 3; i <= n; i++ {
		switch {
		case i%50 == 0:
			b.WriteString("func handler" + itoa(i) + "() {\n")
		case i%50 == 49:
			b.WriteString("}\n")
		default:
			b.WriteString("\tx := " + itoa(i) + " // line\n")
		}
	}
	return b.String()
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + jsonNum(i)) }

func jsonNum(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestReadEditDiagnosticsLensHoverShutdown(t *testing.T) {
	src := goSource(400)
	e, root := start(t, map[string]string{"demo.go": src}, lsptest.Options{})
	u := fileURI(root, "demo.go")
	e.Open(u, "go", src)

	res := read(t, e, u, &ledger.Range{Start: 1, End: 100}, map[string]any{"agent": "coder"})
	if !res.OK || res.Range == nil || res.Range.Start != 1 || res.Range.End != 100 || res.Truncated {
		t.Fatalf("read 1-100: %+v", res.Outcome)
	}
	if !strings.HasPrefix(res.Content, "1:") || strings.Count(res.Content, "\n") != 100 {
		t.Fatalf("content not 100 annotated lines: %.80q", res.Content)
	}
	if res.Ledger.State != ledger.PartialRead || res.TotalLines != 400 || res.Version == nil || *res.Version != 1 {
		t.Fatalf("ledger after read: %+v total %d", res.Ledger, res.TotalLines)
	}

	// Unread diagnostics name what the unread range contains.
	diags := e.WaitDiagnostics(u, func(ds []protocol.Diagnostic) bool { return len(ds) == 1 })
	d := diags[0]
	if d.Range.Start.Line != 100 || d.Range.End.Line != 399 || d.Severity != protocol.DiagnosticSeverityInformation {
		t.Fatalf("unread diagnostic range/severity: %+v", d)
	}
	msg := string(d.Message.(protocol.String))
	if !strings.Contains(msg, "Lines 101-400") || !strings.Contains(msg, "func handler150()") {
		t.Fatalf("unread message: %q", msg)
	}

	// The user types inside the read range (line 10) and inserts two lines above it.
	e.Change(u, lsptest.Edit{StartLine: 9, StartChar: 1, EndLine: 9, EndChar: 1, Text: "y"})
	e.Change(u, lsptest.Edit{StartLine: 2, StartChar: 0, EndLine: 2, EndChar: 0, Text: "// a\n// b\n"})
	var led engine.LedgerResult
	if err := e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &led); err != nil {
		t.Fatal(err)
	}
	doc := led.Documents[0]
	// Line 10 went stale and moved to 12; lines 3-4 are new and unread; the
	// read range grew past them to 102.
	if doc.State != ledger.Stale || len(doc.Stale) != 1 || doc.Stale[0] != (ledger.Range{Start: 12, End: 12}) {
		t.Fatalf("stale after typing: %+v", doc)
	}
	if doc.TotalLines != 402 || !hasRange(doc.Unread, ledger.Range{Start: 3, End: 4}) || !hasRange(doc.Read, ledger.Range{Start: 13, End: 102}) {
		t.Fatalf("shifted ledger: %+v", doc)
	}
	e.WaitDiagnostics(u, func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == protocol.String("stale") && d.Range.Start.Line == 11 && d.Severity == protocol.DiagnosticSeverityWarning {
				return true
			}
		}
		return false
	})
	cov := e.WaitCoverage(u, func(raw json.RawMessage) bool {
		var c engine.CoverageParams
		_ = json.Unmarshal(raw, &c)
		return c.State == ledger.Stale && c.TotalLines == 402 && c.Version != nil && *c.Version == 3
	})
	var c engine.CoverageParams
	_ = json.Unmarshal(cov, &c)
	if c.Session != "default" || c.Version == nil || *c.Version != 3 {
		t.Fatalf("coverage: %s", cov)
	}

	var lenses []protocol.CodeLens
	if err := e.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]string{"uri": u}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) != 1 || lenses[0].Command.Title != "Agent read 99/402 lines · 1 stale range" {
		t.Fatalf("lens: %+v", lenses)
	}

	var hover struct {
		Contents protocol.MarkupContent `json:"contents"`
	}
	if err := e.Call("textDocument/hover", map[string]any{"textDocument": map[string]string{"uri": u}, "position": map[string]int{"line": 20, "character": 0}}, &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "coder read lines 1-100 at version 1,") {
		t.Fatalf("hover: %q", hover.Contents.Value)
	}

	if code := e.Shutdown(); code != 0 {
		t.Fatalf("exit code %d after shutdown", code)
	}
}

func hasRange(rs []ledger.Range, r ledger.Range) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// hashOf computes the hashline hash independently of the hashline package
// (PROTOCOL section 2), so tests of the read path check the format itself.
func hashOf(s string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	v := (crc32.ChecksumIEEE([]byte(s)) & 0xFFFFFF) % (62 * 62 * 62 * 62)
	out := make([]byte, 4)
	for i := 3; i >= 0; i-- {
		out[i] = alphabet[v%62]
		v /= 62
	}
	return string(out)
}

func serverOpts(tb testing.TB) server.Options {
	return server.Options{StateDir: tb.TempDir()}
}
