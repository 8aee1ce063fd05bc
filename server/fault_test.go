package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

// A frame whose Content-Length is garbage ends the connection (the stream
// cannot be resynchronised), and the log must say why, not that the client
// closed it.
func TestGarbageContentLengthLogsTheReason(t *testing.T) {
	for _, header := range []string{"Content-Length: banana", "Content-Length: 99999999999999"} {
		t.Run(header, func(t *testing.T) { garbageHeader(t, header) })
	}
}

func garbageHeader(t *testing.T, header string) {
	core, logs := observer.New(zap.DebugLevel)
	a, b := net.Pipe()
	srv := server.New(server.Options{NoPersist: true, Root: t.TempDir(), Log: zap.New(core)})
	done := make(chan int, 1)
	go func() { done <- srv.Serve(t.Context(), server.NewStream(a, a, a)) }()
	go io.Copy(io.Discard, b)
	fmt.Fprintf(b, "%s\r\n\r\n{}", header)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("server did not stop on a garbage header")
	}
	b.Close()
	if n := logs.FilterMessage("client closed the stream").Len(); n > 0 {
		t.Errorf("logged %q for a garbage Content-Length", "client closed the stream")
	}
	found := false
	for _, e := range logs.All() {
		if strings.Contains(fmt.Sprint(e.ContextMap()), "Content-Length") || strings.Contains(e.Message, "Content-Length") {
			found = true
		}
	}
	if !found {
		t.Errorf("no log names the bad header; logs: %v", logs.All())
	}
}

// blockingReader is stdin as a real editor leaves it: reads block until the
// process ends, and closing it does not wake them.
type blockingReader struct{ r io.Reader }

func (b blockingReader) Read(p []byte) (int, error) { return b.r.Read(p) }

func TestExitIsPrompt(t *testing.T) {
	in, inW := io.Pipe()
	out, outW := net.Pipe()
	// As LSP says, the client sends nothing before initialize is answered,
	// and exit once shutdown is: exit before shutdown's answer is an exit
	// without shutdown (code 1), and a shutdown before initialize's answer
	// is refused, whatever the load.
	inited, shut := make(chan struct{}), make(chan struct{})
	go func() {
		var seen []byte
		waits := []struct {
			id   string
			done chan struct{}
		}{{`"id":1`, inited}, {`"id":2`, shut}}
		buf := make([]byte, 4096)
		for {
			n, err := out.Read(buf)
			if len(waits) > 0 {
				if seen = append(seen, buf[:n]...); bytes.Contains(seen, []byte(waits[0].id)) {
					close(waits[0].done)
					waits, seen = waits[1:], nil
				}
			}
			if err != nil {
				return
			}
		}
	}()
	srv := server.New(server.Options{NoPersist: true, Root: t.TempDir()})
	done := make(chan int, 1)
	go func() { done <- srv.Serve(context.Background(), server.NewStream(blockingReader{in}, outW)) }()
	t.Cleanup(func() { inW.Close(); out.Close() })
	send := func(body string) { fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(body), body) }
	answer := func(c chan struct{}, what string) {
		select {
		case <-c:
		case <-time.After(5 * time.Second):
			t.Fatalf("no answer to %s", what)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	answer(inited, "initialize")
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	answer(shut, "shutdown")
	start := time.Now()
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
		if d := time.Since(start); d > 300*time.Millisecond {
			t.Errorf("exit took %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit")
	}
}

func TestNULInURIIsDenied(t *testing.T) {
	e, root := start(t, map[string]string{"a.txt": "x\n"}, lsptest.Options{})
	u := fileURI(root, "a.txt") + "%00.txt"
	res := read(t, e, u, nil, nil)
	if res.OK || res.Error != "denied" || strings.ContainsRune(res.Message, 0) {
		t.Fatalf("read of a NUL path: %+v", res)
	}
	var w engine.WriteResult
	if err := e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": u}, "mode": "create", "content": "x"}, &w); err != nil {
		t.Fatal(err)
	}
	if w.OK || w.Error != "denied" || strings.ContainsRune(w.Message, 0) {
		t.Fatalf("write of a NUL path: %+v", w)
	}
}

func TestUnreadableFileIsDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads mode-000 files; workspace.TestReadErrorKinds covers the mapping")
	}
	e, root := start(t, map[string]string{"secret.txt": "x\n"}, lsptest.Options{})
	if err := os.Chmod(filepath.Join(root, "secret.txt"), 0); err != nil {
		t.Fatal(err)
	}
	res := read(t, e, fileURI(root, "secret.txt"), nil, nil)
	if res.OK || res.Error != "denied" || !strings.Contains(res.Message, "permission denied") {
		t.Fatalf("read of a mode-000 file: %+v", res)
	}
}

// A didChange the server cannot apply exactly must never be applied wrongly
// or in part: the document is marked out of sync, reads say so, edits are
// refused until the file is reopened, and the user is told.
func TestMalformedDidChangeMarksOutOfSync(t *testing.T) {
	for name, change := range map[string]map[string]any{
		"negative position": {"textDocument": map[string]any{"version": 2}, "contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": -1, "character": 0}, "end": map[string]int{"line": 0, "character": 1}}, "text": "X"}}},
		"null version": {"textDocument": map[string]any{"version": nil}, "contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": "X"}}},
		"version over int32": {"textDocument": map[string]any{"version": int64(1) << 40}, "contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": "X"}}},
		"end before start": {"textDocument": map[string]any{"version": 2}, "contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": "X"}}},
	} {
		t.Run(name, func(t *testing.T) {
			text := "one\ntwo\nthree\n"
			e, root := start(t, map[string]string{"a.txt": text}, lsptest.Options{})
			u := fileURI(root, "a.txt")
			e.Open(u, "plaintext", text)
			change["textDocument"].(map[string]any)["uri"] = u
			if err := e.Notify("textDocument/didChange", change); err != nil {
				t.Fatal(err)
			}
			res := read(t, e, u, nil, nil)
			if !res.OK || res.TotalLines != 3 || !strings.Contains(res.Content, "|one\n") {
				t.Fatalf("the server's copy changed: %+v", res)
			}
			if !strings.Contains(strings.Join(res.Warnings, " "), "out of sync") {
				t.Fatalf("read does not warn that the document is out of sync: %v", res.Warnings)
			}
			ed := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": "1:" + hashOf("one"), "new_content": "uno"}}, nil)
			if ed.OK || ed.Error != "version_conflict" || !strings.Contains(ed.Message, "reopen") {
				t.Fatalf("edit of an out-of-sync document: %+v", ed)
			}
			e.WaitNote("window/showMessage")
			// Reopening brings it back.
			e.Close(u)
			e.Open(u, "plaintext", text)
			read(t, e, u, nil, nil)
			if ed := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": "1:" + hashOf("one"), "new_content": "uno"}}, nil); !ed.OK {
				t.Fatalf("edit after reopening: %+v", ed)
			}
		})
	}
}

// A state database that cannot be opened is said to the user once
// (window/showMessage) and in every answer's warnings.
func TestUnusableStateDatabaseIsReported(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-folder")
	os.WriteFile(file, []byte("x"), 0o644)
	e, root := start(t, map[string]string{"a.txt": "one\n"}, lsptest.Options{Server: server.Options{StateDir: filepath.Join(file, "state")}})
	e.WaitNote("window/showMessage")
	res := read(t, e, fileURI(root, "a.txt"), nil, nil)
	if !res.OK || !strings.Contains(strings.Join(res.Warnings, " "), file) {
		t.Fatalf("read: %+v", res)
	}
	var led engine.LedgerResult
	if err := e.Call("sightline/ledger", nil, &led); err != nil || len(led.Warnings) == 0 {
		t.Fatalf("ledger: %v %+v", err, led)
	}
}

// TestFullTextChangesCollect: an editor that syncs whole documents makes the
// server collect garbage every few megabytes of changes, whatever its
// collector's pace (here switched off), so the lines those changes keep are
// not spread over a heap many times their size.
func TestFullTextChangesCollect(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	e, root := start(t, nil, lsptest.Options{})
	u := fileURI(root, "big.txt")
	line := strings.Repeat("x", 99) + "\n"
	e.Open(u, "plaintext", strings.Repeat(line, 10000)) // 1 MB
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.NumGC
	for v := range 6 {
		e.ReplaceAll(u, strings.Repeat(line, 10000-v))
	}
	var out any
	if err := e.Call("sightline/ledger", nil, &out); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m)
	if m.NumGC == before {
		t.Fatal("6 MB of full-text changes and no collection")
	}
}
