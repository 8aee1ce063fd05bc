package server_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

func TestBadParamsAndUnknownMethods(t *testing.T) {
	e, root := start(t, map[string]string{"a.txt": "one\ntwo\n"}, lsptest.Options{})
	u := fileURI(root, "a.txt")

	wantCode := func(err error, code jsonrpc2.Code) {
		t.Helper()
		var re *jsonrpc2.Error
		if !errors.As(err, &re) || re.Code != code {
			t.Fatalf("got %v, want code %d", err, code)
		}
	}
	wantCode(e.Call("sightline/read", nil, nil), jsonrpc2.InvalidParams)
	wantCode(e.Call("sightline/read", map[string]any{"textDocument": 5}, nil), jsonrpc2.InvalidParams)
	wantCode(e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}, "range": map[string]int{"start": 0, "end": 3}}, nil), jsonrpc2.InvalidParams)
	wantCode(e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": "no-scheme"}}, nil), jsonrpc2.InvalidParams)
	wantCode(e.Call("sightline/nope", nil, nil), jsonrpc2.MethodNotFound)
	wantCode(e.Call("textDocument/definition", map[string]any{"textDocument": map[string]string{"uri": u}, "position": map[string]int{"line": 0, "character": 0}}, nil), jsonrpc2.MethodNotFound)

	// Notifications that are unknown, malformed or have null params never
	// close the connection.
	for _, n := range []struct {
		method string
		params any
	}{
		{"sightline/whatever", nil},
		{"custom/unknown", map[string]int{"x": 1}},
		{"$/cancelRequest", map[string]any{"id": map[string]int{"bad": 1}}},
		{"textDocument/didChange", map[string]any{"textDocument": "garbage"}},
		{"textDocument/didOpen", nil},
		{"initialized", nil},
	} {
		if err := e.Notify(n.method, n.params); err != nil {
			t.Fatalf("notify %s: %v", n.method, err)
		}
	}
	// A null-params ledger call is fine (params are optional there).
	var led engine.LedgerResult
	if err := e.Call("sightline/ledger", nil, &led); err != nil || !led.OK {
		t.Fatalf("ledger after bad input: %v %+v", err, led)
	}
	res := read(t, e, u, nil, nil)
	if !res.OK || res.Content != "1:"+hashOf("one")+"|one\n2:"+hashOf("two")+"|two\n" {
		t.Fatalf("server stopped serving after bad input: %+v", res)
	}
}

func TestRefusals(t *testing.T) {
	huge := strings.Repeat("0123456789abcdef0123456789abcdef\n", 200000) // 6.6 MB
	e, root := start(t, map[string]string{
		"bin.dat":  "PK\x03\x04\x00\x00binary",
		"bad.txt":  "caf\xe9\n",
		"gone.txt": "here\n",
		"huge.txt": huge,
	}, lsptest.Options{})

	for name, kind := range map[string]string{"bin.dat": "binary", "bad.txt": "binary", "missing.txt": "not_found"} {
		res := read(t, e, fileURI(root, name), nil, nil)
		if res.OK || string(res.Error) != kind || res.Message == "" {
			t.Errorf("%s: got ok=%v error=%q message=%q, want %s", name, res.OK, res.Error, res.Message, kind)
		}
	}

	// Deleted between calls.
	u := fileURI(root, "gone.txt")
	if res := read(t, e, u, nil, nil); !res.OK {
		t.Fatalf("first read: %+v", res)
	}
	os.Remove(filepath.Join(root, "gone.txt"))
	if res := read(t, e, u, nil, nil); res.OK || res.Error != "not_found" {
		t.Fatalf("read after delete: %+v", res.Outcome)
	}

	// Outside the workspace.
	outside := filepath.Join(t.TempDir(), "x.txt")
	os.WriteFile(outside, []byte("x\n"), 0o644)
	if res := read(t, e, fileURI(filepath.Dir(outside), "x.txt"), nil, nil); res.OK || res.Error != "denied" {
		t.Fatalf("read outside workspace: %+v", res.Outcome)
	}

	// A huge file: the budget holds, whole lines only, the notice names the rest.
	res := read(t, e, fileURI(root, "huge.txt"), nil, nil)
	if !res.OK || !res.Truncated || res.TotalLines != 200000 {
		t.Fatalf("huge read: %+v", res.Outcome)
	}
	if n := len([]rune(res.Content)); n > 24000 {
		t.Fatalf("budget exceeded: %d chars", n)
	}
	if !strings.HasSuffix(res.Content, "\n") || res.Range.End != strings.Count(res.Content, "\n") {
		t.Fatalf("not whole lines: range %+v", res.Range)
	}
	want := fmt.Sprintf("[Lines %d-200000 truncated", res.Range.End+1)
	if !strings.HasPrefix(res.Notice, want) {
		t.Fatalf("notice %q, want prefix %q", res.Notice, want)
	}
	var led engine.LedgerResult
	e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": fileURI(root, "huge.txt")}}, &led)
	if got := led.Documents[0].Read; len(got) != 1 || got[0] != (ledger.Range{Start: 1, End: res.Range.End}) {
		t.Fatalf("ledger recorded %+v, want exactly the returned lines 1-%d", got, res.Range.End)
	}
}

// TestMalformedJSONRPC writes garbage frames on the wire: the server answers
// what it can and keeps serving.
func TestMalformedJSONRPC(t *testing.T) {
	a, b := net.Pipe()
	srv := server.New(server.Options{NoPersist: true, Root: t.TempDir()})
	done := make(chan int, 1)
	go func() { done <- srv.Serve(t.Context(), server.NewStream(a, a, a)) }()
	defer b.Close()
	r := bufio.NewReader(b)
	send := func(body string) {
		fmt.Fprintf(b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	answers := 0
	recv := func() map[string]any {
		defer func() { answers++ }()
		b.SetReadDeadline(time.Now().Add(5 * time.Second))
		n := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("read header (after %d answers): %v", answers, err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(body, &m)
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"sightline/ledger"}`)
	if m := recv(); m["error"] == nil || m["error"].(map[string]any)["code"].(float64) != -32002 {
		t.Fatalf("request before initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"sightline/ledger",`) // truncated JSON
	if m := recv(); m["error"] == nil {
		t.Fatalf("malformed JSON answered without error: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"sightline/ledger","params":null}`)
	if m := recv(); m["result"] == nil || m["id"].(float64) != 4 {
		t.Fatalf("server stopped after malformed JSON: %v", m)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit")
	}
}

func TestExitWithoutShutdownAndStdinClose(t *testing.T) {
	e := lsptest.Start(t, lsptest.Options{Server: server.Options{NoPersist: true, Root: t.TempDir()}})
	e.Notify("exit", nil)
	if code := <-e.Exit; code != 1 {
		t.Fatalf("exit without shutdown: code %d, want 1", code)
	}

	a, b := net.Pipe()
	srv := server.New(server.Options{NoPersist: true, Root: t.TempDir()})
	done := make(chan int, 1)
	go func() { done <- srv.Serve(t.Context(), server.NewStream(a, a, a)) }()
	b.Close() // the client died
	select {
	case code := <-done:
		if code != 1 {
			t.Fatalf("stdin closed: code %d, want 1", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not exit when its input closed")
	}
}
