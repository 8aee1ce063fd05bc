package acp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/acp"
)

// peer reads one side's lines.
type peer struct {
	t  *testing.T
	sc *bufio.Scanner
	f  *os.File
}

func newPeer(t *testing.T, f *os.File) *peer {
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	return &peer{t: t, sc: sc, f: f}
}

func (p *peer) next() map[string]any {
	p.t.Helper()
	p.f.SetReadDeadline(time.Now().Add(10 * time.Second))
	if !p.sc.Scan() {
		p.t.Fatalf("no line: %v", p.sc.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(p.sc.Bytes(), &m); err != nil {
		p.t.Fatalf("%v: %s", err, p.sc.Bytes())
	}
	return m
}

// openSession has the editor create a session in root (what fixes the
// workspace for the proxy), and the agent receive it.
func openSession(t *testing.T, p *pipes, agent *peer, root string) {
	t.Helper()
	send(t, p.editorW, `{"jsonrpc":"2.0","id":"new-1","method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root)
	if m := agent.next(); m["method"] != "session/new" {
		t.Fatalf("the agent got %v, want session/new", m)
	}
}

func send(t *testing.T, f *os.File, format string, args ...any) {
	t.Helper()
	if _, err := fmt.Fprintf(f, format+"\n", args...); err != nil {
		t.Fatal(err)
	}
}

// TestGuardedWritesAndPermissions: raw ACP messages, as the schema shapes
// them, through the proxy over a workspace on disk: an editor's answer to
// a read is recorded before the agent gets it; an edit's permission
// request for an unread line is rejected by the proxy, with a note to the
// editor, and one for a read line goes to the editor; a whole-file write
// of an unread line is answered by the proxy with the line, and its retry
// goes to the editor.
func TestGuardedWritesAndPermissions(t *testing.T) {
	p, editor, agent, _, file, text := sixLineSession(t)

	// The agent's read tool reads lines 1-2 through the editor: announced,
	// then run.
	send(t, p.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"r1","title":"Read","kind":"read","status":"in_progress","locations":[{"path":%q}]}}}`, file)
	editor.next()
	send(t, p.agentW, `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":%q,"line":1,"limit":2}}`, file)
	editor.next()
	send(t, p.editorW, `{"jsonrpc":"2.0","id":1,"result":{"content":"line 1\nline 2\n"}}`)
	agent.next()
	send(t, p.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"r1","status":"completed"}}}`)
	editor.next()

	// An edit of line 6 (never shown): its permission is rejected.
	send(t, p.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"e1","title":"Edit","kind":"edit","status":"pending","content":[{"type":"diff","path":%q,"oldText":"line 6","newText":"SIX"}]}}}`, file)
	editor.next()
	send(t, p.agentW, `{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"e1"},"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]}}`)
	// An error, not the reject option: its message is what the agents
	// show their model.
	m := agent.next()
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(acp.RefusedCode) ||
		!strings.Contains(fmt.Sprint(e["message"]), "Line 6 was never shown to the agent. Read lines 6, then retry the edit.") {
		t.Fatalf("the agent's answer to an unread edit's permission: %v", m)
	}
	if note := editor.next(); note["method"] != "session/update" || !strings.Contains(fmt.Sprint(note["params"]), "Line 6 was never shown to the agent") {
		t.Fatalf("the editor's note: %v", note)
	}
	// An edit of line 2 (shown): the editor is asked.
	send(t, p.agentW, `{"jsonrpc":"2.0","id":5,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"e2","kind":"edit","content":[{"type":"diff","path":%q,"oldText":"line 2","newText":"TWO"}]},"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]}}`, file)
	if m := editor.next(); m["method"] != "session/request_permission" || m["id"] != float64(5) {
		t.Fatalf("the editor got %v, want the permission request", m)
	}
	// A whole-file write changing line 5: refused by the proxy.
	five := strings.Replace(text, "line 5\n", "FIVE\n", 1)
	send(t, p.agentW, `{"jsonrpc":"2.0","id":2,"method":"fs/write_text_file","params":{"sessionId":"s","path":%q,"content":%q}}`, file, five)
	m = agent.next()
	e, _ := m["error"].(map[string]any)
	if m["id"] != float64(2) || e == nil || e["code"] != float64(acp.RefusedCode) ||
		!strings.Contains(e["message"].(string), "Line 5 was never shown to you") || !strings.Contains(e["message"].(string), "5\tline 5") {
		t.Fatalf("the agent's answer to an unread write: %v", m)
	}
	// The retry (the line now shown) goes to the editor.
	send(t, p.agentW, `{"jsonrpc":"2.0","id":3,"method":"fs/write_text_file","params":{"sessionId":"s","path":%q,"content":%q}}`, file, five)
	if m := editor.next(); m["method"] != "fs/write_text_file" || m["id"] != float64(3) {
		t.Fatalf("the editor got %v, want the retried write", m)
	}
	send(t, p.editorW, `{"jsonrpc":"2.0","id":3,"result":null}`)
	agent.next()

}

// TestWritesPassTheWriteAdmission: a change the admission of a write
// refuses (a sensitive file nobody approved, a version control folder) is
// refused by the proxy, as the hooks refuse it, whether it comes as a
// whole-file write or as an edit's permission request; nothing of it
// reaches the editor.
func TestWritesPassTheWriteAdmission(t *testing.T) {
	r, root := routerAt(t)
	env := filepath.Join(root, ".env")
	if err := os.WriteFile(env, []byte("TOKEN=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitConfig := filepath.Join(root, ".git", "config")
	if err := os.WriteFile(gitConfig, []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, acp.Options{Router: r})
	editor, agent := newPeer(t, p.editorR), newPeer(t, p.agentR)
	openSession(t, p, agent, root)
	for i, file := range []string{env, gitConfig} {
		send(t, p.agentW, `{"jsonrpc":"2.0","id":%d,"method":"fs/write_text_file","params":{"sessionId":"s","path":%q,"content":"X=2\n"}}`, 10+i, file)
		m := agent.next()
		e, _ := m["error"].(map[string]any)
		if m["id"] != float64(10+i) || e == nil || e["code"] != float64(acp.RefusedCode) || !strings.Contains(e["message"].(string), "sightline refused") {
			t.Fatalf("the agent's answer to a write of %s: %v", file, m)
		}
		send(t, p.agentW, `{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"p%d","kind":"edit","content":[{"type":"diff","path":%q,"oldText":"TOKEN=1","newText":"TOKEN=2"}]},"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]}}`, 20+i, i, file)
		m = agent.next()
		if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(acp.RefusedCode) {
			t.Fatalf("the agent's answer to an edit's permission for %s: %v", file, m)
		}
		if note := editor.next(); note["method"] != "session/update" {
			t.Fatalf("the editor got %v, want the note of the rejection", note)
		}
	}
}

// TestMechanicsReadIsNotShown: a read the agent asks the editor for outside
// any read tool call of its own is its tool's mechanics (Gemini CLI's
// replace reads the whole file to compute its edit, then asks permission):
// the model was not shown it, so it counts for nothing, and the edit it
// leads to is judged by what the model was shown. A read tool call of
// another file does not make it one either.
func TestMechanicsReadIsNotShown(t *testing.T) {
	p, editor, agent, root, file, text := sixLineSession(t)

	send(t, p.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"r1","title":"Read","kind":"read","status":"in_progress","locations":[{"path":%q}]}}}`, filepath.Join(root, "other.txt"))
	editor.next()
	send(t, p.agentW, `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":%q}}`, file)
	editor.next()
	send(t, p.editorW, `{"jsonrpc":"2.0","id":1,"result":{"content":%q}}`, text)
	agent.next()
	send(t, p.agentW, `{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"e1","kind":"edit","content":[{"type":"diff","path":%q,"oldText":%q,"newText":%q}]},"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"}]}}`,
		file, text, strings.Replace(text, "line 5", "FIVE", 1))
	m := agent.next()
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(acp.RefusedCode) ||
		!strings.Contains(fmt.Sprint(e["message"]), "Line 5 was never shown to the agent") {
		t.Fatalf("the edit after a read for the tool's mechanics: %v, want refused naming line 5", m)
	}
}

// TestBlindReadIsSaid: a read tool call that reports no text of the file
// (Gemini CLI's read_file: "Read lines 1-3 of 6 from f.txt") counts for
// nothing, and the editor is told so, once a session.
func TestBlindReadIsSaid(t *testing.T) {
	r, root := routerAt(t)
	file := filepath.Join(root, "f.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\nthree\nfour\nfive\nsix\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := start(t, acp.Options{Router: r})
	editor, agent := newPeer(t, p.editorR), newPeer(t, p.agentR)
	openSession(t, p, agent, root)
	for i := range 2 {
		send(t, p.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"r%d","kind":"read","status":"completed","content":[{"type":"content","content":{"type":"text","text":"Read lines 1-3 of 6 from f.txt"}}],"locations":[{"path":%q,"line":1}]}}}`, i, file)
		if m := editor.next(); m["method"] != "session/update" {
			t.Fatalf("the update itself: %v", m)
		}
		if i == 0 {
			if note := editor.next(); !strings.Contains(fmt.Sprint(note["params"]), "sightline cannot see what this agent's reads show") {
				t.Fatalf("the editor's note: %v", note)
			}
		}
	}
	// Once: the next line the editor gets is the agent's next message.
	send(t, p.agentW, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`)
	if m := editor.next(); !strings.Contains(fmt.Sprint(m["params"]), "hi") {
		t.Fatalf("a second note, or something else: %v", m)
	}
}

// sixLineSession is a proxy with a session open in a workspace holding
// f.txt, "line 1" to "line 6": the pipes, the editor's and the agent's
// peers, the root, the file and its text.
func sixLineSession(t *testing.T) (p *pipes, editor, agent *peer, root, file, text string) {
	t.Helper()
	r, root := routerAt(t)
	file = filepath.Join(root, "f.txt")
	var b strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p = start(t, acp.Options{Router: r})
	editor, agent = newPeer(t, p.editorR), newPeer(t, p.agentR)
	openSession(t, p, agent, root)
	return p, editor, agent, root, file, b.String()
}
