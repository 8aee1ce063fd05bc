package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/ledger"
)

// ACP peers nobody here wrote drive `sightline acp`: the official
// TypeScript SDK as the editor's side and as a scripted agent
// (testdata/acpclient), and acpx, a real ACP client, driving the scripted
// agent. They skip when node or the packages are missing, unless
// SIGHTLINE_REQUIRE_REAL_CLIENTS is set (CI sets it).

// acpClientDir is testdata/acpclient with its packages installed.
func acpClientDir(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs("../../testdata/acpclient")
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node")
	}
	for _, pkg := range []string{"@agentclientprotocol/sdk", "acpx"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
			requireOrSkip(t, "testdata/acpclient/node_modules (npm ci)")
		}
	}
	return dir
}

// acpDemo is a workspace holding demo.txt, ten lines "line N".
func acpDemo(t *testing.T) *cli {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return newCLI(t, map[string]string{"demo.txt": b.String()})
}

// TestACPClient: the SDK's client launches `sightline acp -- node
// agent.mjs` and plays every case through it (client.mjs says which).
func TestACPClient(t *testing.T) {
	t.Parallel() // mostly waiting on processes and bounds: beside the other long ones
	dir := acpClientDir(t)
	c := acpDemo(t)
	cmd := exec.Command("node", filepath.Join(dir, "client.mjs"))
	cmd.Dir = dir
	cmd.Env = append(c.env, "SIGHTLINE_BIN="+c.bin, "WORKSPACE="+c.dir)
	out, err := cmd.CombinedOutput()
	t.Logf("acp client:\n%s", out)
	if err != nil {
		t.Fatalf("acp client failed: %v", err)
	}
	if !strings.Contains(string(out), "ok  acp client done") {
		t.Fatal("acp client did not finish its checks")
	}
}

// TestACPAcpx: acpx, a real ACP client, drives the scripted agent through
// `sightline acp`: a read through the client's fs/read_text_file is
// recorded, and an unread whole-file write is refused before acpx writes
// it, the agent getting the lines.
func TestACPAcpx(t *testing.T) {
	dir := acpClientDir(t)
	c := acpDemo(t)
	agent := fmt.Sprintf("%s acp -- node %s", c.bin, filepath.Join(dir, "agent.mjs"))
	cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "acpx"), "--agent", agent, "--cwd", c.dir,
		"--approve-all", "--format", "text", "--timeout", "15", "exec", "read-write")
	cmd.Dir = c.dir
	cmd.Env = append(c.env, "WORKSPACE="+c.dir, "HOME="+t.TempDir())
	b, err := cmd.CombinedOutput()
	out := string(b)
	t.Logf("acpx:\n%s", out)
	if err != nil {
		t.Fatalf("acpx: %v", err)
	}
	if !strings.Contains(out, `read: "line 1\nline 2\nline 3`) {
		t.Fatal("acpx: the agent did not get the lines it read")
	}
	if !strings.Contains(out, "write error -32001: sightline refused this change") || !strings.Contains(out, "Line 8 was never shown to you") {
		t.Fatal("acpx: the agent did not get the refusal of its unread write")
	}
	if !strings.Contains(out, "8\tline 8") {
		t.Fatal("acpx: the refusal does not carry the line")
	}
	if text := mustRead(t, filepath.Join(c.dir, "demo.txt")); strings.Contains(text, "EIGHT") {
		t.Fatal("the refused write reached the file")
	}
	// Written behind by the proxy's engine before it exited.
	if got := c.known("acp-"+sessionOf(t, out), "demo.txt"); !got.Covers(ledger.Range{Start: 1, End: 3}) || !got.Covers(ledger.Range{Start: 8, End: 8}) {
		t.Fatalf("the session's ledger holds %v, want lines 1-3 (read) and 8 (handed over by the refusal)", got.Ranges())
	}
}

// TestACPLedgerShowsInTheEditor: with a language server of the workspace
// running (the editor's), what the proxy records goes to it through the
// bridge and shows in the editor's coverage at once, as the CLI's reads do;
// the workspace is the session's cwd, wherever the proxy was started.
func TestACPLedgerShowsInTheEditor(t *testing.T) {
	dir := acpClientDir(t)
	c := acpDemo(t)
	ed := startEditor(t, c)
	u := string(uri.File(filepath.Join(c.dir, "demo.txt")))
	ed.Open(u, "plaintext", mustRead(t, filepath.Join(c.dir, "demo.txt")))

	// Started outside the workspace, as an editor may start an agent: the
	// session's cwd names the workspace.
	cmd := exec.Command(c.bin, "acp", "--", "node", filepath.Join(dir, "agent.mjs"))
	cmd.Dir = t.TempDir()
	cmd.Env = append(c.env, "WORKSPACE="+c.dir)
	cmd.Stderr = testWriter{t}
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan map[string]json.RawMessage, 64)
	go func() {
		sc := bufio.NewScanner(outPipe)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	send := func(s string) { io.WriteString(in, s+"\n") }
	// next returns the next message that is not a session/update.
	next := func() map[string]json.RawMessage {
		t.Helper()
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatal("the proxy ended")
				}
				if string(m["method"]) != `"session/update"` {
					return m
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no message from the proxy in 10 s")
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}}`)
	next()
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, c.dir))
	var s struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(next()["result"], &s)
	// The editor shows the ACP session (its session picker lists it).
	pick := map[string]any{"session": "acp-" + s.SessionID}
	raw, _ := json.Marshal(pick)
	ed.SetSettings(raw)
	if err := ed.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": pick}}); err != nil {
		t.Fatal(err)
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"read"}]}}`, s.SessionID))
	req := next()
	if string(req["method"]) != `"fs/read_text_file"` {
		t.Fatalf("want the agent's fs/read_text_file, got %v", req)
	}
	// The editor answers from its buffer.
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":"line 1\nline 2\nline 3\n"}}`, req["id"]))
	answered := time.Now()
	ed.WaitCoverage(u, func(raw json.RawMessage) bool { return strings.Contains(string(raw), `"read":[{"start":1,"end":3}]`) })
	if d := time.Since(answered); d > 2*time.Second {
		t.Fatalf("the read reached the editor's coverage after %v", d)
	}
}

// TestACPWorkspaceIsTheEditors: the agent cannot choose the workspace.
// Started in a folder that is not the project (as an editor may start it
// in $HOME), the agent speaks first: a completed read tool call and a
// write of the project's .git/config, before the editor created any
// session. The write is refused, never reaching the editor, and the
// workspace, the MCP server's --root among it, is the one the editor's
// session/new names.
func TestACPWorkspaceIsTheEditors(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripted agent is a shell script")
	}
	c := acpDemo(t)
	if err := os.WriteFile(filepath.Join(c.dir, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	got := filepath.Join(t.TempDir(), "agent-got")
	update := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"r1","kind":"read","status":"completed","locations":[{"path":%q}],"content":[{"type":"content","content":{"type":"text","text":"x"}}]}}}`, filepath.Join(home, "notes.txt"))
	write := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"fs/write_text_file","params":{"sessionId":"s","path":%q,"content":"[core]\n\thooksPath = /tmp/evil\n"}}`, filepath.Join(c.dir, ".git", "config"))
	ready := `{"jsonrpc":"2.0","method":"_test/ready","params":{}}`
	script := `printf '%s\n' "$ACP_UPDATE" "$ACP_WRITE" "$ACP_READY"; cat > "$ACP_GOT"` // the shell keeps its output open meanwhile
	cmd := exec.Command(c.bin, "acp", "--", "sh", "-c", script)
	cmd.Dir = home
	cmd.Env = append(c.env, "ACP_UPDATE="+update, "ACP_WRITE="+write, "ACP_READY="+ready, "ACP_GOT="+got)
	cmd.Stderr = testWriter{t}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	var methods []string
	for sc.Scan() {
		var m struct {
			Method string `json:"method"`
		}
		json.Unmarshal(sc.Bytes(), &m)
		methods = append(methods, m.Method)
		if m.Method == "_test/ready" {
			break
		}
	}
	if fmt.Sprint(methods) != "[session/update _test/ready]" {
		t.Fatalf("the editor got %v, want the tool call's update and the sentinel (the write refused)", methods)
	}
	io.WriteString(in, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", c.dir))
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("sightline acp did not exit")
	}
	if text := mustRead(t, filepath.Join(c.dir, ".git", "config")); strings.Contains(text, "evil") {
		t.Fatal("the write reached .git/config")
	}
	lines := strings.Split(strings.TrimSpace(mustRead(t, got)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"error"`) || !strings.Contains(lines[0], "has not created or loaded a session") {
		t.Fatalf("the agent got %q, want the write's refusal then session/new", lines)
	}
	var req struct {
		Params struct {
			MCPServers []struct {
				Args []string `json:"args"`
			} `json:"mcpServers"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &req); err != nil || len(req.Params.MCPServers) != 1 {
		t.Fatalf("session/new as the agent got it: %s (%v)", lines[1], err)
	}
	if args := req.Params.MCPServers[0].Args; len(args) < 3 || args[1] != "--root" || args[2] != c.dir {
		t.Fatalf("the MCP server's args %q, want --root %s (the editor's session), not %s", args, c.dir, home)
	}
}

// sessionOf is the session id the scripted agent says it runs.
func sessionOf(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`session: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the agent did not say its session:\n%s", out)
	}
	return m[1]
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMCPSessionFile: `sightline mcp --session-file F` (what `sightline acp`
// adds to a new session, whose id it learns only later) uses --session
// until F exists, then the session F names.
func TestMCPSessionFile(t *testing.T) {
	c := acpDemo(t)
	file := filepath.Join(t.TempDir(), "name")
	cmd := exec.Command(c.bin, "mcp", "--session", "before", "--session-file", file)
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stderr = testWriter{t}
	cl := mcp.NewClient(&mcp.Implementation{Name: "acp-test", Version: "1"}, nil)
	s, err := cl.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, isErr := callText(t, s, "sightline_read", map[string]any{"path": "demo.txt", "start": 1, "end": 2}); isErr {
		t.Fatal("read refused")
	}
	if err := os.WriteFile(file, []byte("acp-named\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, isErr := callText(t, s, "sightline_read", map[string]any{"path": "demo.txt", "start": 5, "end": 6}); isErr {
		t.Fatal("read refused")
	}
	s.Close() // the server writes its ledger as it exits
	before, named := c.known("before", "demo.txt"), c.known("acp-named", "demo.txt")
	if got := before.Ranges(); fmt.Sprint(got) != "[1-2]" {
		t.Errorf("before the file: session %q read %v, want [1-2]", "before", got)
	}
	if got := named.Ranges(); fmt.Sprint(got) != "[5-6]" {
		t.Errorf("after the file: session %q read %v, want [5-6]", "acp-named", got)
	}
}
