package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
	"github.com/sightline-lsp/sightline/store"
)

// benchWorkspace is a 1,000-line Python file in a workspace with its own
// state home, and the CLI's environment for it.
func benchWorkspace(b *testing.B) (ws string, env []string) {
	b.Helper()
	ws = b.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "def f%d(x):\n", i)
	}
	os.WriteFile(filepath.Join(ws, "f.py"), []byte(sb.String()), 0o644)
	state := b.TempDir()
	b.Setenv("XDG_STATE_HOME", state)
	return ws, append(os.Environ(), "XDG_STATE_HOME="+state)
}

// benchEditor runs an in-process server with its bridge for ws, f.py open.
func benchEditor(b *testing.B, ws string) (*lsptest.Editor, string) {
	b.Helper()
	dir, err := store.Dir(ws)
	if err != nil {
		b.Fatal(err)
	}
	ed := lsptest.Start(b, lsptest.Options{Root: ws, Server: server.Options{Bridge: true, StateDir: dir}})
	u := string(uri.File(filepath.Join(ws, "f.py")))
	text, _ := os.ReadFile(filepath.Join(ws, "f.py"))
	ed.Open(u, "python", string(text))
	return ed, u
}

// BenchmarkBridgeCLIRead10 is `sightline read f.py:100-109` end to end,
// process start included: through a running server's socket, and alone on
// disk for comparison; "start" is `sightline version`, the process start
// alone, on the same machine.
func BenchmarkBridgeCLIRead10(b *testing.B) {
	bin := benchBinary(b)
	for _, mode := range []string{"bridge", "disk", "start"} {
		b.Run(mode, func(b *testing.B) {
			ws, env := benchWorkspace(b)
			args := []string{"read", "f.py:100-109"}
			switch mode {
			case "bridge":
				benchEditor(b, ws)
			case "disk":
				env = append(env, "SIGHTLINE_NO_BRIDGE=1")
			case "start":
				args = []string{"version"}
			}
			ts := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				cmd := exec.Command(bin, args...)
				cmd.Dir, cmd.Env = ws, env
				start := time.Now()
				out, err := cmd.Output()
				ts = append(ts, time.Since(start))
				if err != nil || (mode != "start" && !strings.HasPrefix(string(out), "100:")) {
					b.Fatalf("read: %v %s", err, out)
				}
			}
			reportQuantiles(b, ts)
		})
	}
}

// BenchmarkBridgeMCPEdit is a sightline_edit of a document open in the
// editor, through `sightline mcp` and the bridge: the tool call, the
// server's workspace/applyEdit, the editor's didChange echo, the answer.
func BenchmarkBridgeMCPEdit(b *testing.B) {
	bin := benchBinary(b)
	ws, env := benchWorkspace(b)
	ed, u := benchEditor(b, ws)
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = ws, env
	s, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	call := func(name string, args map[string]any) string {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	call("sightline_read", map[string]any{"path": "f.py", "start": 490, "end": 510})
	cur := "def f499(x):"
	ts := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		next := fmt.Sprintf("def f499(x):  # %d", i)
		start := time.Now()
		call("sightline_edit", map[string]any{"path": "f.py", "edits": []map[string]any{{"type": "replace_line", "ref": ref(500, cur), "new_content": next}}})
		ts = append(ts, time.Since(start))
		cur = next
	}
	b.StopTimer()
	if !strings.Contains(ed.Buffer(u), cur+"\n") {
		b.Fatal("the edits did not reach the editor's buffer")
	}
	reportQuantiles(b, ts)
}

// BenchmarkMCPStartToFirstAnswer starts `sightline mcp`, runs the MCP
// handshake and answers one sightline_read: on disk, and through a server.
func BenchmarkMCPStartToFirstAnswer(b *testing.B) {
	bin := benchBinary(b)
	for _, mode := range []string{"disk", "bridge"} {
		b.Run(mode, func(b *testing.B) {
			ws, env := benchWorkspace(b)
			if mode == "bridge" {
				benchEditor(b, ws)
			}
			ts := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				cmd := exec.Command(bin, "mcp")
				cmd.Dir, cmd.Env = ws, env
				start := time.Now()
				s, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					b.Fatal(err)
				}
				res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "sightline_read", Arguments: map[string]any{"path": "f.py", "start": 1, "end": 10}})
				ts = append(ts, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("read: %v %+v", err, res)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			reportQuantiles(b, ts)
		})
	}
}
