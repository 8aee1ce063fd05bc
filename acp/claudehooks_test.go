package acp_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sightline-lsp/sightline/acp"
)

// TestClaudeBasedAgentGetsTheHooks: an agent whose initialize names Claude
// gets sightline's hooks with each session it creates, in the settings the
// adapter passes to Claude Code, after the hooks the editor gave there; an
// agent of another name gets none, and settings given as a file's path
// are left as they are.
func TestClaudeBasedAgentGetsTheHooks(t *testing.T) {
	ours := map[string][]any{"PreToolUse": {map[string]any{"matcher": "Edit", "hooks": []any{map[string]any{"type": "command", "command": "sightline hook claude"}}}}}
	settingsOf := func(m map[string]any) any {
		meta, _ := m["params"].(map[string]any)["_meta"].(map[string]any)
		cc, _ := meta["claudeCode"].(map[string]any)
		opts, _ := cc["options"].(map[string]any)
		return opts["settings"]
	}
	for _, tc := range []struct {
		agent, meta, want string
	}{
		{"@agentclientprotocol/claude-agent-acp", `{"claudeCode":{"options":{"settings":{"model":"x","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[]}]}}}}}`,
			`{"hooks":{"PreToolUse":[{"hooks":[],"matcher":"Bash"},{"hooks":[{"command":"sightline hook claude","type":"command"}],"matcher":"Edit"}]},"model":"x"}`},
		{"@agentclientprotocol/claude-agent-acp", `null`,
			`{"hooks":{"PreToolUse":[{"hooks":[{"command":"sightline hook claude","type":"command"}],"matcher":"Edit"}]}}`},
		{"@agentclientprotocol/claude-agent-acp", `{"claudeCode":{"options":{"settings":"team.json"}}}`, `"team.json"`},
		{"gemini-cli", `{"claudeCode":{"options":{"settings":{}}}}`, `{}`},
	} {
		t.Run(tc.agent+" "+tc.meta, func(t *testing.T) {
			_, root := routerAt(t)
			p := start(t, acp.Options{ClaudeHooks: ours})
			editor, agent := newPeer(t, p.editorR), newPeer(t, p.agentR)
			send(t, p.editorW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			agent.next()
			send(t, p.agentW, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":%q}}}`, tc.agent)
			editor.next()
			send(t, p.editorW, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[],"_meta":%s}}`, root, tc.meta)
			m := agent.next()
			got, _ := json.Marshal(settingsOf(m))
			if string(got) != tc.want && !(tc.want == "{}" && string(got) == "{}") {
				t.Fatalf("the settings the agent got: %s, want %s (message %v)", got, tc.want, fmt.Sprint(m))
			}
		})
	}
}
