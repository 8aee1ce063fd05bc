package acp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/acp"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
)

// door is a proxy over a workspace on disk whose session the editor has
// created, as a hostile agent meets it: root holds f.txt (six lines, none
// shown), .env, .git/config, secret/key.txt (denied by the policy) and a
// link d/hk to .git/hooks.
type door struct {
	t             *testing.T
	r             *route.Router
	root          string
	p             *pipes
	editor, agent *peer
}

func newDoor(t *testing.T, o acp.Options, openFirst bool) *door {
	r, root := routerWith(t, func(c *config.Config) { c.Policy.Deny = []string{"secret/**"} })
	var b strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	for name, text := range map[string]string{"f.txt": b.String(), ".env": "TOKEN=1\n", ".git/config": "[core]\n",
		".git/hooks/pre-commit": "#!/bin/sh\n", "secret/key.txt": "k\n", "d/x.txt": "x\n"} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join("..", ".git", "hooks"), filepath.Join(root, "d", "hk")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	o.Router = r
	p := start(t, o)
	d := &door{t: t, r: r, root: root, p: p, editor: newPeer(t, p.editorR), agent: newPeer(t, p.agentR)}
	if openFirst {
		openSession(t, p, d.agent, root)
	}
	return d
}

func (d *door) path(rel string) string { return filepath.Join(d.root, filepath.FromSlash(rel)) }

// q is a JSON string.
func q(s string) string { return fmt.Sprintf("%q", s) }

// sentinel sends a harmless notification from the agent and checks it is
// the editor's next line: nothing the agent sent before it reached the
// editor.
func (d *door) sentinel(after string) {
	d.t.Helper()
	send(d.t, d.p.agentW, `{"jsonrpc":"2.0","method":"_sightline_test/sentinel","params":{}}`)
	if m := d.editor.next(); m["method"] != "_sightline_test/sentinel" {
		d.t.Fatalf("after %s the editor got %v", after, m)
	}
}

// nullID stands for an id that is JSON's null.
const nullID = "<null id>"

// short is a line cut for a message.
func short(line string) string {
	if len(line) > 300 {
		return line[:300] + "…"
	}
	return line
}

// refused sends the agent's line and checks the proxy answers it with an
// error for id (when id is not nil) and nothing reaches the editor; it
// returns the error's message.
func (d *door) refused(line string, id any) string {
	d.t.Helper()
	send(d.t, d.p.agentW, "%s", line)
	msg := ""
	if id != nil {
		m := d.agent.next()
		e, _ := m["error"].(map[string]any)
		got, want := fmt.Sprint(m["id"]), fmt.Sprint(id)
		if id == nullID {
			want = "<nil>"
		}
		if got != want || e == nil || e["code"] != float64(acp.RefusedCode) {
			d.t.Fatalf("the agent's answer to %s: %v, want an error for id %v", short(line), m, id)
		}
		msg, _ = e["message"].(string)
		if !strings.Contains(msg, "sightline re") {
			d.t.Fatalf("the refusal of %s does not say who refused: %q", short(line), msg)
		}
	}
	d.sentinel(short(line))
	return msg
}

// forwarded sends the agent's line and checks the editor gets the method.
func (d *door) forwarded(line, method string) {
	d.t.Helper()
	send(d.t, d.p.agentW, "%s", line)
	if m := d.editor.next(); m["method"] != method {
		d.t.Fatalf("the editor got %v, want %s", m, method)
	}
}

// audited returns the audit's rows of a session.
func (d *door) audited(session string) []engine.AuditRow {
	d.t.Helper()
	res, err := d.r.Call(context.Background(), ops.Audit, engine.AuditParams{Session: session})
	if err != nil {
		d.t.Fatal(err)
	}
	return res.(engine.AuditResult).Entries
}

// wantAudited checks that a session's audit holds a refusal of kind for
// path (relative; "" for any).
func (d *door) wantAudited(session, kind, path string) {
	d.t.Helper()
	rows := d.audited(session)
	for _, r := range rows {
		if r.Outcome == "refused" && r.Error == kind && (path == "" || r.Path == path) {
			return
		}
	}
	d.t.Errorf("no %s refusal of %q audited for %s: %+v", kind, path, session, rows)
}

func write(id any, session, path, content string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"fs/write_text_file","params":{"sessionId":%q,"path":%q,"content":%q}}`, id, session, path, content)
}

func read(id any, session, path string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"fs/read_text_file","params":{"sessionId":%q,"path":%q}}`, id, session, path)
}

const options = `"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]`

// TestAgentLinesReadExactly: every line of the agent is read as the editor
// reads it: member names exactly, each once (escapes spelled out), valid
// UTF-8, one value; a judged method's params as ACP's schema shapes them.
// Whatever else the agent sends is refused, with an error it can read when
// the line has an id, audited, and never reaches the editor.
func TestAgentLinesReadExactly(t *testing.T) {
	d := newDoor(t, acp.Options{}, true)
	gitConfig, f, fresh := d.path(".git/config"), d.path("f.txt"), d.path("new.txt")
	six := "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n"
	five := strings.Replace(six, "line 5", "FIVE", 1)
	for _, c := range []struct {
		name, line string
		id         any
	}{
		{"another case's method", `{"jsonrpc":"2.0","id":1,"method":"fs/write_text_file","Method":"x","params":{"sessionId":"s","path":` + q(gitConfig) + `,"content":"x"}}`, 1},
		{"another case's path", `{"jsonrpc":"2.0","id":2,"method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(gitConfig) + `,"Path":` + q(fresh) + `,"content":"x"}}`, 2},
		{"another case's content", `{"jsonrpc":"2.0","id":3,"method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(f) + `,"content":` + q(five) + `,"CONTENT":` + q(six) + `}}`, 3},
		{"a path named twice", `{"jsonrpc":"2.0","id":4,"method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(fresh) + `,"path":` + q(gitConfig) + `,"content":"x"}}`, 4},
		{"an escaped duplicate", `{"jsonrpc":"2.0","id":5,"method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(fresh) + `,"p\u0061th":` + q(gitConfig) + `,"content":"x"}}`, 5},
		{"a method named twice", `{"jsonrpc":"2.0","id":6,"method":"_vendor/harmless","method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(gitConfig) + `,"content":"x"}}`, 6},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"fs/write_text_file\",\"params\":{\"sessionId\":\"s\",\"path\":" + q(fresh) + ",\"content\":\"\xff\"}}", 7},
		{"a second value", write(8, "s", fresh, "x") + ` {"jsonrpc":"2.0","id":80,"method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(gitConfig) + `,"content":"x"}}`, 8},
		{"a method not a string", `{"jsonrpc":"2.0","id":9,"method":["fs/write_text_file"],"params":{"sessionId":"s","path":` + q(gitConfig) + `,"content":"x"}}`, 9},
		{"a batch", `[` + write(10, "s", gitConfig, "x") + `]`, nil},
		{"not JSON", `{"jsonrpc":"2.0","id":11,"method":"fs/write_text_file",`, 11},
		{"a path not a string", `{"jsonrpc":"2.0","id":12,"method":"fs/write_text_file","params":{"sessionId":"s","path":["` + gitConfig + `"],"content":"x"}}`, 12},
		{"no content", `{"jsonrpc":"2.0","id":13,"method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(f) + `}}`, 13},
		{"content not a string", `{"jsonrpc":"2.0","id":14,"method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(f) + `,"content":7}}`, 14},
		{"params not an object", `{"jsonrpc":"2.0","id":15,"method":"fs/write_text_file","params":"oops"}`, 15},
		{"no params", `{"jsonrpc":"2.0","id":16,"method":"fs/write_text_file"}`, 16},
		{"a relative path", write(17, "s", "f.txt", five), 17},
		{"an odd id", write(`{"odd":true}`, "s", gitConfig, "x"), map[string]any{"odd": true}},
		{"a null id", write("null", "s", gitConfig, "x"), nullID},
		{"a boolean id", write("true", "s", gitConfig, "x"), true},
		{"an array id", write("[1]", "s", gitConfig, "x"), []any{1}},
		{"a notification", `{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"sessionId":"s","path":` + q(fresh) + `,"content":"x"}}`, nil},
		{"a read with another case's path", `{"jsonrpc":"2.0","id":18,"method":"fs/read_text_file","params":{"sessionId":"s","path":` + q(f) + `,"PATH":` + q(gitConfig) + `,"path":` + q(f) + `}}`, 18},
		{"a read's line not a number", `{"jsonrpc":"2.0","id":19,"method":"fs/read_text_file","params":{"sessionId":"s","path":` + q(f) + `,"line":"1"}}`, 19},
		{"a nested duplicate", `{"jsonrpc":"2.0","id":20,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"n1","content":[{"type":"diff","path":` + q(f) + `,"oldText":"line 6","newText":"x","newText":"SIX"}]},` + options + `}}`, 20},
		{"a permission's toolCall unreadable", `{"jsonrpc":"2.0","id":21,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"x","content":"nope"},"options":7}}`, 21},
		{"a duplicate in an unjudged message", `{"jsonrpc":"2.0","id":22,"method":"terminal/create","params":{"sessionId":"s","command":"true","command":"rm"}}`, 22},
	} {
		t.Run(c.name, func(t *testing.T) {
			d.t = t
			d.refused(c.line, c.id)
		})
	}
	d.t = t
	d.wantAudited("acp-s", "unjudged", "")
	d.wantAudited("acp", "unjudged", "")

	// An edit's permission whose diff the proxy would read from another
	// case's member: judged as the editor shows it, rejected.
	send(t, d.p.agentW, `{"jsonrpc":"2.0","id":30,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c1","kind":"edit","content":[{"type":"diff","path":%q,"oldText":"line 6","newText":"SIX"}],"CONTENT":[]},%s}}`, f, options)
	if m := d.agent.next(); m["error"] == nil || !strings.Contains(fmt.Sprint(m["error"]), "Line 6 was never shown") {
		t.Fatalf("the agent's answer to an unread edit's permission (another case's content): %v", m)
	}
	if note := d.editor.next(); note["method"] != "session/update" {
		t.Fatalf("the editor got %v, want the note of the rejection", note)
	}
	// A tool call's content is what the editor reads (another case's
	// member is not it), and a later permission request naming the call
	// is judged by it.
	d.forwarded(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"u1","kind":"edit","content":[{"type":"diff","path":`+q(f)+`,"oldText":"line 6","newText":"SIX"}],"Content":[]}}}`, "session/update")
	send(t, d.p.agentW, `{"jsonrpc":"2.0","id":33,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"u1"},%s}}`, options)
	if m := d.agent.next(); !strings.Contains(fmt.Sprint(m["error"]), "Line 6 was never shown") {
		t.Fatalf("the agent's answer to the permission of a call whose content came beside another case's: %v", m)
	}
	d.editor.next() // the note
	// A tool call whose update cannot be read exactly does not reach the
	// editor (what a later permission request names is what the proxy saw).
	d.refused(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"u1","kind":"edit","content":[{"type":"diff","path":`+q(f)+`,"oldText":"line 6","newText":"SIX","newText":"x"}]}}}`, nil)
	d.refused(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":7}}}`, nil)
	d.refused(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"u2","content":[1]}}}`, nil)
	// An escaped method name is the method: judged.
	if msg := d.refused(`{"jsonrpc":"2.0","id":31,"method":"fs\/write_text_file","params":{"sessionId":"s","path":`+q(gitConfig)+`,"content":"x"}}`, 31); !strings.Contains(msg, "inside .git") {
		t.Fatalf("an escaped method's write: %q", msg)
	}
	// What can be read exactly still goes: a write of a new file.
	d.forwarded(write(32, "s", fresh, "x\n"), "fs/write_text_file")
}

// TestRequestsWithoutSessionRefused: a write or a read whose sessionId is
// missing, empty or not a string is refused: whose reads judge it is not
// known.
func TestRequestsWithoutSessionRefused(t *testing.T) {
	d := newDoor(t, acp.Options{}, true)
	gitConfig, f := d.path(".git/config"), d.path("f.txt")
	for i, params := range []string{
		`{"path":` + q(gitConfig) + `,"content":"x"}`,
		`{"sessionId":"","path":` + q(gitConfig) + `,"content":"x"}`,
		`{"sessionId":7,"path":` + q(gitConfig) + `,"content":"x"}`,
		`{"sessionId":null,"path":` + q(f) + `,"content":"x"}`,
	} {
		d.refused(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fs/write_text_file","params":%s}`, i, params), i)
		d.refused(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":%s}`, 10+i, params), 10+i)
	}
	d.wantAudited("acp", "unjudged", ".git/config")
}

// TestLongAgentLineRefused: a line of the agent longer than the proxy reads
// whole is refused, never forwarded: answered when its first bytes hold
// the id, and the proxy goes on with the next line.
func TestLongAgentLineRefused(t *testing.T) {
	d := newDoor(t, acp.Options{MaxLine: 1024}, true)
	gitConfig := d.path(".git/config")
	pad := strings.Repeat("x", 5000)
	d.refused(write(9, "s", gitConfig, pad), 9)
	d.refused(`{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"sessionId":"s","path":`+q(gitConfig)+`,"content":"`+pad+`"},"id":10}`, 10)
	// Its id past what was read of it: nobody to answer.
	d.refused(`{"jsonrpc":"2.0","method":"fs/write_text_file","params":{"sessionId":"s","path":`+q(gitConfig)+`,"content":"`+strings.Repeat("z", 200<<10)+`"},"id":13}`, nil)
	d.refused(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`+pad+`"}}}}`, nil)
	// Longer than the reader's buffer too: read past, in parts.
	d.refused(write(12, "s", d.path("new.txt"), strings.Repeat("y", 200<<10)), 12)
	d.wantAudited("acp", "unjudged", "")
	d.forwarded(write(11, "s", d.path("new.txt"), "x\n"), "fs/write_text_file")
}

// TestPathsJudgedAsTheEditorOpensThem: the editor opens a path as given,
// the system resolving "..": after the link d/hk (to .git/hooks),
// d/hk/../config is .git/config, not d/config. A path that is not plain
// (".", "..", doubled or trailing separators) is refused, as is one outside
// the workspace.
func TestPathsJudgedAsTheEditorOpensThem(t *testing.T) {
	d := newDoor(t, acp.Options{}, true)
	through := d.root + "/d/hk/../config"
	other := t.TempDir()
	for i, path := range []string{through, d.root + "/d/hk/../hooks/pre-commit", d.root + "/./new.txt", d.root + "//new.txt", d.root + "/d/", filepath.Join(other, "x.txt"), d.root + "/d/../../" + filepath.Base(other) + "/x.txt"} {
		if msg := d.refused(write(i, "s", path, "x\n"), i); !strings.Contains(msg, path) {
			t.Errorf("the refusal of a write of %s does not name it: %q", path, msg)
		}
		d.refused(read(20+i, "s", path), 20+i)
		// A rejected edit's permission: the agent's error, and the editor's
		// note of why.
		send(t, d.p.agentW, `{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"p%d","content":[{"type":"diff","path":%q,"oldText":null,"newText":"x"}]},"options":[]}}`, 40+i, i, path)
		if m := d.agent.next(); m["id"] != float64(40+i) || m["error"] == nil {
			t.Fatalf("the agent's answer to the permission of an edit of %s: %v", path, m)
		}
		if note := d.editor.next(); !strings.Contains(fmt.Sprint(note["params"]), "sightline rejected this edit of "+path) {
			t.Fatalf("the editor's note: %v", note)
		}
	}
	if _, err := os.Stat(filepath.Join(d.root, "d", "config")); err == nil {
		t.Fatal("d/config exists")
	}
	d.wantAudited("acp-s", "unjudged", "")
	// A plain path through a link that stays in the workspace is judged
	// where the link leads: .git/hooks, denied.
	if err := os.Symlink(filepath.Join(".git", "config"), d.path("cfg")); err != nil {
		t.Fatal(err)
	}
	for i, rel := range []string{"d/hk/pre-commit", "d/hk/post-checkout", "cfg"} {
		if msg := d.refused(write(60+i, "s", d.path(rel), "x\n"), 60+i); !strings.Contains(msg, ".git") {
			t.Fatalf("a write of %s through the link: %q", rel, msg)
		}
	}
	if msg := d.refused(read(69, "s", d.path("cfg")), 69); !strings.Contains(msg, ".git") {
		t.Fatalf("a read through the link: %q", msg)
	}
}

// TestWorkspaceFixedByTheEditor: before the editor creates or loads a
// session, the workspace is not known: what the agent asks is refused, not
// judged in a workspace sightline guessed, and its tool calls record
// nothing; the editor's session/new fixes it.
func TestWorkspaceFixedByTheEditor(t *testing.T) {
	d := newDoor(t, acp.Options{}, false)
	fresh, f := d.path("new.txt"), d.path("f.txt")
	if msg := d.refused(write(1, "s", fresh, "x\n"), 1); !strings.Contains(msg, "session") {
		t.Fatalf("a write before any session: %q", msg)
	}
	d.refused(read(2, "s", f), 2)
	d.refused(`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"e0","content":[{"type":"diff","path":`+q(f)+`,"oldText":"line 6","newText":"SIX"}]},`+options+`}}`, 3)
	// A completed read tool call is forwarded, and records nothing.
	d.forwarded(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"r0","kind":"read","status":"completed","locations":[{"path":`+q(f)+`}],"content":[{"type":"content","content":{"type":"text","text":"line 1\nline 2\nline 3\nline 4\nline 5\nline 6\n"}}]}}}`, "session/update")
	// The editor's initialize does not fix it either.
	send(t, d.p.editorW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	d.agent.next()
	d.refused(write(4, "s", fresh, "x\n"), 4)

	openSession(t, d.p, d.agent, d.root)
	d.forwarded(write(5, "s", fresh, "x\n"), "fs/write_text_file")
	// Line 6 was never shown (the tool call before the session counted
	// for nothing): its write is refused by the guard.
	six := "line 1\nline 2\nline 3\nline 4\nline 5\nSIX\n"
	if msg := d.refused(write(6, "s", f, six), 6); !strings.Contains(msg, "Line 6 was never shown") {
		t.Fatalf("a write of a line shown before the session: %q", msg)
	}
}

// TestReadsPassTheReadAdmission: a read through the editor passes the
// admission sightline's own reads pass: a sensitive file nobody approved,
// a path the policy denies, .git/config and a file outside the workspace
// are refused by the proxy with an error the agent reads, audited; the
// editor never reads them. A plain file's read goes on.
func TestReadsPassTheReadAdmission(t *testing.T) {
	d := newDoor(t, acp.Options{}, true)
	outside := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ path, kind, rel string }{
		{d.path(".env"), "approval_refused", ".env"},
		{d.path("secret/key.txt"), "denied", "secret/key.txt"},
		{d.path(".git/config"), "denied", ".git/config"},
		{d.path(".git/hooks/pre-commit"), "denied", ".git/hooks/pre-commit"},
		{outside, "unjudged", ""},
	} {
		msg := d.refused(read(i, "s", c.path), i)
		if !strings.Contains(msg, "read of "+c.path) {
			t.Errorf("the refusal of a read of %s: %q", c.path, msg)
		}
		d.wantAudited("acp-s", c.kind, c.rel)
	}
	d.forwarded(read(9, "s", d.path("f.txt")), "fs/read_text_file")
}

// TestPendingIdNotReused: a judged request whose id is that of one still
// awaiting the editor's answer, in any spelling the editor reads as the
// same (escapes, 1 and 1.0), is refused: the answer would be recorded for
// the wrong request. Once answered, the id is free again.
func TestPendingIdNotReused(t *testing.T) {
	d := newDoor(t, acp.Options{}, true)
	f, fresh := d.path("f.txt"), d.path("new.txt")
	d.forwarded(read(`"a\u0062"`, "s", f), "fs/read_text_file")
	d.refused(write(`"ab"`, "s", fresh, "x\n"), "ab")
	d.forwarded(read(1, "s", f), "fs/read_text_file")
	d.refused(read("1.0", "s", f), 1)
	d.refused(read("1e0", "s", f), 1)
	send(t, d.p.editorW, `{"jsonrpc":"2.0","id":"ab","result":{"content":"line 1\nline 2\n"}}`)
	d.agent.next()
	d.forwarded(write(`"ab"`, "s", fresh, "x\n"), "fs/write_text_file")
}
