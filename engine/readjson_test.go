package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestReadJSONStreamed: result.Write streams a read's content (ReadResult is
// a result.LargeText); what it writes is byte for byte what the encoder
// writes for the whole answer, as the language server sends it (Marshal),
// compact and indented, whatever the file holds and however it is read.
func TestReadJSONStreamed(t *testing.T) {
	var long strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&long, "\tline %d \"q\" \\ </script> é\n", i)
	}
	files := map[string]string{
		"go":       "package a\n\nfunc f() {\n\ts := \"a\\tb\" // `x`\n\treturn\n}\n",
		"controls": "a\x01b\x1bc\x7f\bd\fe\vf\n",
		"nulbyte":  "a\x00b\n", // not "nul": a reserved name on Windows
		"invalid":  "ok\n\xff\xfe\n\xe4\xb8\n",
		"crlf":     "a\r\nb\r\nc\r",
		"bom":      "\ufeffx\ny\n",
		"unicode":  "世界 😀 \u2028 \u2029 \ufffd\n",
		"html":     "<script>alert('&amp;')</script>\n",
		"empty":    "",
		"nonl":     "last line",
		"long":     long.String(),
	}
	ctx := context.Background()
	root := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir()})
	defer e.Close(ctx)
	no := false
	notices := 0
	for name := range files {
		for _, annotate := range []*bool{nil, &no} {
			for _, budget := range []int{0, 100} { // 100: cut, with a notice
				p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, name)))}, Annotate: annotate}
				if budget > 0 {
					p.Budget = &struct {
						Chars int `json:"chars"`
					}{budget}
				}
				for how, read := range map[string]func(context.Context, engine.ReadParams) (engine.ReadResult, error){"Read": e.Read, "ReadDisk": e.ReadDisk} {
					res, err := read(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					checkStreamed(t, fmt.Sprintf("%s %s annotate=%v budget=%d", how, name, annotate == nil, budget), res)
					if res.Notice != "" {
						notices++
					}
				}
			}
		}
	}
	if notices == 0 {
		t.Fatal("no read was cut with a notice")
	}
	// What no file on disk gives (binary files are refused), an editor's
	// buffer or a future path could: the escaping is the encoder's anyway.
	r := ledger.Range{Start: 1, End: 2}
	checkStreamed(t, "built", engine.ReadResult{
		Outcome:    engine.Outcome{OK: true, Warnings: []string{"w\t\"x\""}},
		URI:        "file:///a\"b",
		Path:       "a\"b",
		Content:    "1:abcd|\x00\xff\xc0\x80\ufeff\t\"\\\n2:efgh|\u2028</script>&\n",
		Range:      &r,
		TotalLines: 2,
		Truncated:  true,
		Notice:     "[Lines 3-4 truncated]",
	})
}

// plainRead has ReadResult's fields but not its SplitText.
type plainRead engine.ReadResult

func checkStreamed(t *testing.T, what string, res engine.ReadResult) {
	t.Helper()
	for _, indent := range []bool{false, true} {
		// The encoder's own output: plainRead is not a result.LargeText.
		want, err := result.Marshal(plainRead(res))
		if indent {
			want, err = indented(plainRead(res))
		}
		if fast, err := result.Marshal(res); err != nil || !indent && string(fast) != string(want) {
			t.Fatalf("%s: Marshal (the language server's answer) differs from the encoder: %v", what, err)
		}
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := result.Write(&got, res, indent); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got.String() != string(want)+"\n" {
			t.Fatalf("%s, indent %v: streamed\n%.400q\nencoder\n%.400q", what, indent, got.String(), want)
		}
		// Decoded, it is the answer.
		var back engine.ReadResult
		if err := json.Unmarshal(got.Bytes(), &back); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if utf8.ValidString(res.Content) && back.Content != res.Content {
			t.Fatalf("%s: content decodes to %.200q, want %.200q", what, back.Content, res.Content)
		}
	}
	// Its content apart from its JSON (the bridge's attachment), it decodes
	// to what its whole JSON decodes to.
	b, text, err := result.MarshalApart(res)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var apart, whole engine.ReadResult
	if err := result.UnmarshalApart(b, text, &apart); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	full, _ := result.Marshal(res)
	if err := result.Unmarshal(full, &whole); err != nil {
		t.Fatal(err)
	}
	a, _ := result.Marshal(apart)
	if w, _ := result.Marshal(whole); string(a) != string(w) {
		t.Fatalf("%s: apart decodes to\n%.400q\nwhole to\n%.400q", what, a, w)
	}
}

// indented is the encoder's indented output of v (result.Write's, but for
// the newline).
func indented(v any) ([]byte, error) {
	var b bytes.Buffer
	err := result.Write(&b, v, true)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}
