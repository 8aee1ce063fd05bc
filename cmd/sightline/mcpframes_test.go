package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/mcptools"
)

// rawMCP is `sightline mcp` fed raw lines, as a broken or hostile client
// would send them.
type rawMCP struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

func startRawMCP(t *testing.T, c *cli) *rawMCP {
	t.Helper()
	cmd := exec.Command(c.bin, "mcp")
	cmd.Dir, cmd.Env = c.dir, append(c.env, "SIGHTLINE_NO_BRIDGE=1")
	cmd.Stderr = testWriter{t}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	m := &rawMCP{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), next: 100}
	m.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

func (m *rawMCP) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.in, line+"\n"); err != nil {
		m.t.Fatalf("sightline mcp stopped reading (exited?): %v", err)
	}
}

type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// recv reads the next message, failing after 10 s or when the server exits.
func (m *rawMCP) recv() rpcMessage {
	m.t.Helper()
	type got struct {
		line []byte
		err  error
	}
	ch := make(chan got, 1)
	go func() {
		l, err := m.out.ReadBytes('\n')
		ch <- got{l, err}
	}()
	select {
	case g := <-ch:
		if g.err != nil {
			m.t.Fatalf("sightline mcp ended its output: %v", g.err)
		}
		var msg rpcMessage
		if err := json.Unmarshal(g.line, &msg); err != nil {
			m.t.Fatalf("not a JSON-RPC message: %q", g.line)
		}
		return msg
	case <-time.After(10 * time.Second):
		m.t.Fatal("no message from sightline mcp within 10 s")
	}
	return rpcMessage{}
}

// call sends a request and returns its answer, with the messages that came
// before it.
func (m *rawMCP) call(method, params string) (rpcMessage, []rpcMessage) {
	m.t.Helper()
	m.next++
	id := fmt.Sprint(m.next)
	m.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
	var before []rpcMessage
	for {
		msg := m.recv()
		if string(msg.ID) == id {
			return msg, before
		}
		before = append(before, msg)
	}
}

// TestMCPMalformedLines: a line that is not a JSON-RPC message is answered
// with a JSON-RPC error and the server goes on serving; a write of content
// under the documented 16 MiB limit gets through whatever its frame's size.
func TestMCPMalformedLines(t *testing.T) {
	c := newCLI(t, map[string]string{"f.py": diskText})
	m := startRawMCP(t, c)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	bad := []struct {
		name, line string
		code       int
	}{
		{"not JSON", "this is not json", -32700},
		{"truncated", `{"jsonrpc":"2.0","id":1,`, -32700},
		{"array", "[1,2,3]", -32600},
		{"empty array", "[]", -32600},
		{"number", "42", -32600},
		{"string", `"hello"`, -32600},
		{"null", "null", -32600},
		{"no jsonrpc", `{"id":7,"method":"ping"}`, -32600},
		{"wrong version", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, -32600},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
		{"deep nesting", deep, -32700},
		{"deep nesting in params", `{"jsonrpc":"2.0","id":9,"method":"ping","params":` + deep + `}`, -32700},
	}
	for _, b := range bad {
		m.send(b.line)
		ans, before := m.call("ping", "{}")
		if ans.Error != nil {
			t.Errorf("%s: the next request was refused: %+v", b.name, ans.Error)
		}
		if len(before) != 1 || before[0].Error == nil || before[0].Error.Code != b.code {
			t.Errorf("%s: want one JSON-RPC error %d before the next answer, got %+v", b.name, b.code, before)
		}
	}

	// 10 MiB of content, some of it needing escapes: the frame is well over
	// 10 MiB, under the documented limit of the content.
	var sb strings.Builder
	for sb.Len() < 10<<20 {
		sb.WriteString("line \"quoted\" \\ with\ttabs and ünïcode\n")
	}
	content := sb.String()
	args, _ := json.Marshal(map[string]any{"name": "sightline_write", "arguments": map[string]any{"path": "big.txt", "mode": "create", "content": content}})
	start := time.Now()
	ans, _ := m.call("tools/call", string(args))
	t.Logf("the 10 MiB write (a %d-byte line) answered in %v", len(args), time.Since(start).Round(time.Millisecond))
	if ans.Error != nil {
		t.Fatalf("10 MiB write: %+v", ans.Error)
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	json.Unmarshal(ans.Result, &res)
	if got, _ := os.ReadFile(filepath.Join(c.dir, "big.txt")); res.IsError || string(got) != content {
		t.Fatalf("10 MiB write: isError %v, %d bytes written of %d: %s", res.IsError, len(got), len(content), ans.Result[:min(len(ans.Result), 500)])
	}
	if ans, _ := m.call("ping", "{}"); ans.Error != nil {
		t.Fatalf("ping after the big write: %+v", ans.Error)
	}

	start = time.Now()
	// A line over the bound is skipped unread and answered.
	m.send(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", mcptools.MaxLine) + `"}}`)
	ans, before := m.call("ping", "{}")
	if ans.Error != nil || len(before) != 1 || before[0].Error == nil || before[0].Error.Code != -32600 {
		t.Fatalf("an overlong line: want one -32600 then the answer, got %+v then %+v", before, ans)
	}
	t.Logf("an overlong line answered in %v", time.Since(start).Round(time.Millisecond))
}
