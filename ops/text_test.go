package ops

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
)

// evil is a value from outside that would forge a row of a line-oriented
// text, clear the terminal showing it, or break its line elsewhere.
const evil = "a\nfake row\x1b[2J\u2028\t\xff"

// TestTextEscapesOutsideValues: a session id, a path, a message holding a
// line break each stay on their line of the answer's text, quoted.
func TestTextEscapesOutsideValues(t *testing.T) {
	now := time.Unix(0, 0)
	for _, c := range []struct {
		name  string
		text  string
		lines int
		want  string
	}{
		{"audit", Audit.Text(engine.AuditResult{Outcome: engine.Outcome{OK: true}, Entries: []engine.AuditRow{
			{Time: now, Session: "a\nfake row", Agent: "acp", Method: "sightline/check", Outcome: "allowed", Path: "x\ny.go"}}}),
			1, `"a\nfake row/acp"`},
		{"sessions", Sessions.Text(engine.SessionsResult{Outcome: engine.Outcome{OK: true}, Sessions: []engine.SessionRow{{Session: "a\nfake row", LastSeen: now}}}),
			1, `"a\nfake row"  0 documents`},
		{"an empty ledger", Ledger.Text(engine.LedgerResult{Outcome: engine.Outcome{OK: true}, Session: "a\nfake row"}),
			1, `Session "a\nfake row" has read nothing yet.`},
		{"a ledger", Ledger.Text(engine.LedgerResult{Outcome: engine.Outcome{OK: true}, Session: "s",
			Documents: []engine.DocLedger{{Path: "a\nb.go", State: "partial_read", TotalLines: 3, Read: []ledger.Range{{Start: 1, End: 2}}}}}),
			1, `"a\nb.go"  partial_read  3 lines  read 1-2`},
		{"a read", Read.Text(engine.ReadResult{Outcome: engine.Outcome{OK: true}, Path: "a\nb.go", Range: &ledger.Range{Start: 1, End: 1},
			TotalLines: 1, Content: "1:abcd|\tthe line\n"}), 2, "\"a\\nb.go\" lines 1-1 of 1 (on disk, file_hash )\n1:abcd|\tthe line\n"},
		{"a refusal", Read.Text(engine.ReadResult{Outcome: engine.Outcome{Error: "not_found", Message: "no file a\nb.go", Warnings: []string{"\x1b[31mred\u2029"}}}),
			2, "warning: \"\\x1b[31mred\\u2029\"\nnot_found: \"no file a\\nb.go\"\n"},
	} {
		if n := strings.Count(c.text, "\n"); n != c.lines || !strings.Contains(c.text, c.want) {
			t.Errorf("%s: %d lines:\n%s\nwant %d lines holding %s", c.name, n, c.text, c.lines, c.want)
		}
	}
	if got := Outside("src/main.go — é"); got != "src/main.go — é" {
		t.Errorf("a printable value was quoted: %s", got)
	}
}

// TestTextEscapesEveryOperation: every operation's text, with every
// string of its result from outside (file content excepted, which is
// shown as it is), keeps each value on its line: no line starts with what
// followed a line break, and no escape or separator reaches the text.
func TestTextEscapesEveryOperation(t *testing.T) {
	content := map[string]bool{"Content": true, "Diff": true, "Window": true, "Expanded": true, "Shown": true,
		"Merge": true, "Excerpt": true, "FreshRefs": true, "Nearest": true}
	for _, op := range Table() {
		for _, ok := range []bool{true, false} {
			r := reflect.New(reflect.TypeOf(op.Refused(errors.New("x")))).Elem()
			fill(r, content, 0)
			r.Addr().Interface().(enveloped).Envelope().OK = ok
			text := op.Text(r.Interface())
			for l := range strings.Lines(text) {
				if strings.HasPrefix(l, "fake row") || strings.ContainsAny(l, "\x1b\u2028") {
					t.Errorf("%s (ok %v): a value broke its line:\n%q\nin:\n%s", op.Method(), ok, l, text)
				}
			}
		}
	}
}

// fill sets every string of v to evil (but file content), every list to
// one item, every number to 3.
func fill(v reflect.Value, content map[string]bool, depth int) {
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(evil)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Float64:
		v.SetFloat(3)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), content, depth+1)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // raw JSON
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), content, depth+1)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, content, depth+1)
		fill(e, content, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && !content[f.Name] {
				fill(v.Field(i), content, depth+1)
			}
		}
	}
}

// TestFilesTextShowsHashes: a hash the listing carries (asked for with
// --hash, or remembered) is in its text, not only in its JSON.
func TestFilesTextShowsHashes(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	text := Files.Text(engine.FilesResult{Outcome: engine.Outcome{OK: true}, Files: []engine.FileEntry{
		{Path: "a.go", Size: 3, Tags: []string{"code"}, State: "never_read", FileHash: hash},
		{Path: ".env", Size: 4, Tags: []string{"config"}, State: "never_read", Sensitive: true}}})
	if want := "a.go  3 bytes  code  never_read  " + hash + "\n"; !strings.HasPrefix(text, want) {
		t.Errorf("text:\n%s\nwant it to start with\n%s", text, want)
	}
	if !strings.Contains(text, ".env  4 bytes  config  never_read  sensitive\n") {
		t.Errorf("text:\n%s\nwant the sensitive file as before", text)
	}
}
