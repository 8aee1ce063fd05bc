package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
	"github.com/sightline-lsp/sightline/store"
)

// Bridge scenarios: a server runs in-process with the fake editor (lsptest)
// and its socket open; the CLI and `sightline mcp` run as the built binary
// in the same workspace, as a terminal agent would.

const (
	diskText  = "def f():\n    return 1\n"
	dirtyText = "def f():\n    return 2  # unsaved\n"
)

// bridged starts a workspace holding f.py, an editor with f.py open and
// dirty, and the server's socket in the workspace's state folder.
func bridged(t *testing.T) (*cli, *lsptest.Editor, string) {
	t.Helper()
	c := newCLI(t, map[string]string{"f.py": diskText})
	ed := startEditor(t, c)
	u := string(uri.File(filepath.Join(c.dir, "f.py")))
	ed.Open(u, "python", dirtyText)
	return c, ed, u
}

// startEditor runs a server for c's workspace with its bridge on; the
// state folder is the one the CLI derives (XDG_STATE_HOME of c.env).
func startEditor(t *testing.T, c *cli) *lsptest.Editor {
	t.Helper()
	return lsptest.Start(t, lsptest.Options{Root: c.dir, Server: server.Options{Bridge: true, StateDir: stateDirOf(t, c)}})
}

func envOf(c *cli, key string) string {
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// stateDirOf is the state folder the CLI of c uses.
func stateDirOf(t *testing.T, c *cli) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", envOf(c, "XDG_STATE_HOME"))
	d, err := store.Dir(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ref(line int, content string) string { return fmt.Sprintf("%d:%s", line, hashline.Hash(content)) }

func TestBridgeCLIEditsTheBuffer(t *testing.T) {
	c, ed, u := bridged(t)
	out, errOut, code := c.run("", "read", "f.py")
	if code != 0 || !strings.Contains(out, "return 2  # unsaved") {
		t.Fatalf("read through the bridge must show the editor's buffer: %d\n%s%s", code, out, errOut)
	}
	edits := `[{"type":"replace_line","ref":"` + ref(2, "    return 2  # unsaved") + `","new_content":"    return 3"}]`
	out, errOut, code = c.run(edits, "edit", "f.py", "--edits", "-")
	if code != 0 {
		t.Fatalf("edit: %d\n%s%s", code, out, errOut)
	}
	if got := ed.Buffer(u); got != "def f():\n    return 3\n" {
		t.Fatalf("buffer after the CLI edit: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "f.py")); string(b) != diskText {
		t.Fatalf("the disk under an open buffer was written: %q", b)
	}

	// The ledger is the server's: the CLI's read shows there at once.
	out, _, _ = c.run("", "ledger", "f.py", "--json")
	if !strings.Contains(out, `"state":"fully_read"`) {
		t.Fatalf("ledger through the bridge: %s", out)
	}
}

func TestBridgeCLIReadShowsAsCoverage(t *testing.T) {
	c, ed, u := bridged(t)
	if _, errOut, code := c.run("", "read", "f.py:1"); code != 0 {
		t.Fatalf("read: %s", errOut)
	}
	done := time.Now()
	ed.WaitCoverage(u, func(raw json.RawMessage) bool { return strings.Contains(string(raw), `"read":[{"start":1,"end":1}]`) })
	if d := time.Since(done); d > 100*time.Millisecond {
		t.Fatalf("the CLI read reached the editor's coverage after %v, want ≤ 100 ms", d)
	}
}

// mcpSession starts `sightline mcp` in c's workspace with the official Go
// SDK's client.
func mcpSession(t *testing.T, c *cli) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(c.bin, "mcp")
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stderr = testWriter{t}
	cl := mcp.NewClient(&mcp.Implementation{Name: "bridge-test", Version: "1"}, nil)
	s, err := cl.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Logf("mcp stderr: %s", b); return len(b), nil }

// callText calls a tool and returns its text and isError.
func callText(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestBridgeMCPEditsTheBufferThenFallsBack(t *testing.T) {
	c, ed, u := bridged(t)
	s := mcpSession(t, c)
	text, isErr := callText(t, s, "sightline_read", map[string]any{"path": "f.py"})
	if isErr || !strings.Contains(text, "return 2  # unsaved") || !strings.Contains(text, "editor buffer v1") {
		t.Fatalf("read through the bridge: %s", text)
	}
	text, isErr = callText(t, s, "sightline_edit", map[string]any{"path": "f.py", "edits": []map[string]any{
		{"type": "replace_line", "ref": ref(2, "    return 2  # unsaved"), "new_content": "    return 4"}}})
	if isErr || ed.Buffer(u) != "def f():\n    return 4\n" {
		t.Fatalf("MCP edit through the bridge: %s\nbuffer %q", text, ed.Buffer(u))
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "f.py")); string(b) != diskText {
		t.Fatalf("the disk under an open buffer was written: %q", b)
	}

	// The editor closes: the server goes away mid-session.
	if code := ed.Shutdown(); code != 0 {
		t.Fatalf("server exit %d", code)
	}
	text, isErr = callText(t, s, "sightline_read", map[string]any{"path": "f.py"})
	if isErr || !strings.Contains(text, "warning: The language server") || !strings.Contains(text, "on disk") || !strings.Contains(text, "return 1") {
		t.Fatalf("read after the server went away must come from disk with a warning: %s", text)
	}
	text, isErr = callText(t, s, "sightline_edit", map[string]any{"path": "f.py", "edits": []map[string]any{
		{"type": "replace_line", "ref": ref(2, "    return 1"), "new_content": "    return 5"}}})
	if isErr {
		t.Fatalf("edit on disk after fallback: %s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, "f.py")); string(b) != "def f():\n    return 5\n" {
		t.Fatalf("disk after the fallback edit: %q", b)
	}
}

func TestBridgeTwoWorkspacesNeverCross(t *testing.T) {
	a, edA, uA := bridged(t)
	b := newCLI(t, map[string]string{"f.py": diskText})
	b.env = a.env // one state home: the folders still differ per workspace
	edB := startEditor(t, b)
	uB := string(uri.File(filepath.Join(b.dir, "f.py")))
	edB.Open(uB, "python", "def f():\n    return 'B'\n")
	outA, _, _ := a.run("", "read", "f.py")
	outB, _, _ := b.run("", "read", "f.py")
	if !strings.Contains(outA, "return 2  # unsaved") || !strings.Contains(outB, "return 'B'") {
		t.Fatalf("each CLI must reach its own workspace's server:\nA: %s\nB: %s", outA, outB)
	}
	// A path of the other workspace is denied, not served by its server.
	if _, errOut, code := a.run("", "read", filepath.Join(b.dir, "f.py")); code != 1 || !strings.Contains(errOut, "denied") {
		t.Fatalf("read of another workspace's file: %d %s", code, errOut)
	}
	if edA.Buffer(uA) != dirtyText {
		t.Fatal("A's buffer changed")
	}
}

func TestBridgeStaleSocketOfAKilledServer(t *testing.T) {
	c := newCLI(t, map[string]string{"f.py": diskText})
	state := stateDirOf(t, c)
	sockDir, err := bridge.Dir(state)
	if err != nil {
		t.Fatal(err)
	}
	// A real `sightline serve`, initialized, then killed: its socket stays.
	srv := startServer(t, c)
	socks := bridge.Sockets(sockDir)
	if len(socks) != 1 {
		t.Fatalf("sockets: %v", socks)
	}
	sock := socks[0]
	if out, _, code := c.run("", "read", "f.py"); code != 0 || !strings.Contains(out, "return 1") {
		t.Fatalf("read through the live server: %d %s", code, out)
	}
	srv.Process.Kill()
	srv.Wait()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("a killed server's socket should be left behind: %v", err)
	}
	// The CLI finds it dead, works on disk and removes it.
	if out, errOut, code := c.run("", "read", "f.py"); code != 0 || !strings.Contains(out, "return 1") {
		t.Fatalf("read with a stale socket: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatalf("the stale socket was not removed: %v", err)
	}
	// A stale socket is also cleared by the next server, which serves.
	killAnother(t, c, sockDir)
	ed := startEditor(t, c)
	u := string(uri.File(filepath.Join(c.dir, "f.py")))
	ed.Open(u, "python", dirtyText)
	if s := bridge.Sockets(sockDir); len(s) != 1 {
		t.Fatalf("sockets after a new server started: %v, want its own only", s)
	}
	if out, _, _ := c.run("", "read", "f.py"); !strings.Contains(out, "unsaved") {
		t.Fatalf("read through the new server: %s", out)
	}
}

// killAnother leaves a second killed server's socket behind.
func killAnother(t *testing.T, c *cli, sockDir string) {
	t.Helper()
	srv := exec.Command(c.bin, "serve")
	srv.Dir, srv.Env = c.dir, c.env
	stdin, _ := srv.StdinPipe()
	srv.Stdout = io.Discard
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, uri.File(c.dir))
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(init), init)
	for deadline := time.Now().Add(10 * time.Second); len(bridge.Sockets(sockDir)) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	srv.Process.Kill()
	srv.Wait()
	if len(bridge.Sockets(sockDir)) != 1 {
		t.Fatal("the killed server left no socket")
	}
}

// TestOpenShowsTheDocumentInTheEditor: `sightline open PATH:LINE` reaches
// the running editor through its server's socket (window/showDocument);
// without one it says there is no editor to ask.
func TestOpenShowsTheDocumentInTheEditor(t *testing.T) {
	c := newCLI(t, map[string]string{"f.py": diskText})
	if _, errOut, code := c.run("", "open", "f.py:2"); code != 1 || !strings.Contains(errOut, "No editor") {
		t.Fatalf("open without an editor: %d %s", code, errOut)
	}
	caps := `{"workspace":{"applyEdit":true},"window":{"showDocument":{"support":true}}}`
	ed := lsptest.Start(t, lsptest.Options{Root: c.dir, Capabilities: json.RawMessage(caps), Server: server.Options{Bridge: true, StateDir: stateDirOf(t, c)}})
	if out, errOut, code := c.run("", "open", "f.py:2"); code != 0 || !strings.Contains(out, "line 2") {
		t.Fatalf("open: %d %s %s", code, out, errOut)
	}
	ed.WaitNote("window/showDocument")
	var shown struct {
		URI       string `json:"uri"`
		Selection struct {
			Start struct{ Line int } `json:"start"`
		} `json:"selection"`
	}
	for _, n := range ed.Notes() {
		if n.Method == "window/showDocument" {
			json.Unmarshal(n.Params, &shown)
		}
	}
	if !strings.HasSuffix(shown.URI, "/f.py") || shown.Selection.Start.Line != 1 {
		t.Fatalf("showDocument: %+v", shown)
	}
}

// The commands on the session's state (session reset, approvals, audit) run
// on a running server like every other call: a reset through it must reach
// its ledger (and so its editor), not only the database behind it.
func TestBridgeSessionResetReachesTheServer(t *testing.T) {
	c, ed, u := bridged(t)
	if _, errOut, code := c.run("", "read", "f.py"); code != 0 {
		t.Fatalf("read: %s", errOut)
	}
	state := func() string {
		var res struct {
			Documents []struct{ State string } `json:"documents"`
		}
		if err := ed.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &res); err != nil || len(res.Documents) != 1 {
			t.Fatalf("ledger: %v %+v", err, res)
		}
		return res.Documents[0].State
	}
	if s := state(); s != "fully_read" {
		t.Fatalf("after the CLI's read the server's ledger says %s", s)
	}
	if out, errOut, code := c.run("", "session", "reset"); code != 0 {
		t.Fatalf("session reset: %d\n%s%s", code, out, errOut)
	}
	if s := state(); s != "never_read" {
		t.Fatalf("session reset answered success but the server's ledger still says %s", s)
	}
	// The audit the CLI shows is the server's, with the rows it has not
	// written yet: the reset itself is in it.
	out, errOut, code := c.run("", "audit", "--json")
	if code != 0 || !strings.Contains(out, `"method":"sightline/session/reset"`) {
		t.Fatalf("audit through the server: %d\n%s%s", code, out, errOut)
	}
}
