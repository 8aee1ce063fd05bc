package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// askingCaps is a client that can ask the user (window.showMessage).
const askingCaps = `{"workspace":{"applyEdit":true,"workspaceEdit":{"documentChanges":true}},"window":{"showMessage":{"messageActionItem":{"additionalPropertiesSupport":false}}},"general":{"positionEncodings":["utf-16"]}}`

// userConfig points the user's config folder at a temp folder holding cfg.
func userConfig(t *testing.T, cfg string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if cfg == "" {
		return
	}
	if err := os.MkdirAll(filepath.Join(dir, "sightline"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sightline", "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

var policyFiles = map[string]string{
	"main.go":           "package main\n",
	"secret/plan.txt":   "the plan\n",
	"private/notes.txt": "notes\n",
	".env":              "API_KEY=abc123\n",
	"deploy/tls.pem":    "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
	// The repository tries to loosen the user's policy: allow everything,
	// nothing sensitive. Only its deny rule may count.
	".sightline.json": `{"policy":{"allow":["**"],"deny":["secret/**"],"sensitive":[]}}`,
}

func TestPolicyDenyAndSensitiveWithoutAsking(t *testing.T) {
	userConfig(t, `{"policy":{"allow":["**"],"deny":["private/**"]}}`)
	e, root := start(t, policyFiles, lsptest.Options{})
	for _, c := range []struct{ path, want, says string }{
		{"secret/plan.txt", "denied", `deny rule "secret/**" (repository)`},
		{"private/notes.txt", "denied", `deny rule "private/**" (user)`},
		{".env", "approval_refused", "sensitive"},
		{"deploy/tls.pem", "approval_refused", "*.pem"},
	} {
		res := read(t, e, fileURI(root, c.path), nil, nil)
		if res.OK || string(res.Error) != c.want || !strings.Contains(res.Message, c.says) || res.Content != "" {
			t.Errorf("read %s: %+v", c.path, res.Outcome)
		}
		w := write(t, e, fileURI(root, c.path), "append", "x\n", nil)
		if w.OK || string(w.Error) != c.want {
			t.Errorf("append %s: %+v", c.path, w.Outcome)
		}
	}
	// A denied path cannot be created either, and nothing was written.
	if w := write(t, e, fileURI(root, "secret/new.txt"), "create", "x\n", nil); w.OK || w.Error != "denied" {
		t.Errorf("create in a denied folder: %+v", w.Outcome)
	}
	if _, err := os.Stat(filepath.Join(root, "secret/new.txt")); err == nil {
		t.Error("a denied create wrote the file")
	}
	// A link with an innocent name leading to a sensitive file is sensitive.
	if err := os.Symlink(".env", filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if res := read(t, e, fileURI(root, "notes.txt"), nil, nil); res.OK || res.Error != "approval_refused" {
		t.Errorf("read through a link to .env: %+v", res.Outcome)
	}
	if res := read(t, e, fileURI(root, "main.go"), nil, nil); !res.OK {
		t.Errorf("read main.go: %+v", res.Outcome)
	}
	// Writing the repository's own configuration needs approval.
	read(t, e, fileURI(root, ".sightline.json"), nil, nil)
	if w := write(t, e, fileURI(root, ".sightline.json"), "overwrite", "{}\n", nil); w.OK || w.Error != "approval_refused" {
		t.Errorf("overwrite .sightline.json: %+v", w.Outcome)
	}
}

func TestPolicyApprovalsOverLSP(t *testing.T) {
	userConfig(t, "")
	e, root := start(t, policyFiles, lsptest.Options{Capabilities: json.RawMessage(askingCaps)})
	var asked atomic.Int32
	var answer atomic.Value
	answer.Store("Allow once")
	e.ShowMessageRequest = func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked.Add(1)
		if !strings.Contains(p.Message, ".env") || len(p.Actions) != 3 {
			t.Errorf("question: %+v", p)
		}
		a := answer.Load().(string)
		if a == "" {
			return nil
		}
		return &protocol.MessageActionItem{Title: a}
	}
	u := fileURI(root, ".env")
	// Allow once: the real content, and the next call asks again.
	if res := read(t, e, u, nil, nil); !res.OK || !strings.Contains(res.Content, "API_KEY=abc123") {
		t.Fatalf("approved read: %+v", res)
	}
	if res := read(t, e, u, nil, nil); !res.OK || asked.Load() != 2 {
		t.Fatalf("second read: %+v, asked %d times", res.Outcome, asked.Load())
	}
	// Denied (or dismissed): approval_refused.
	answer.Store("Deny")
	if res := read(t, e, u, nil, nil); res.OK || res.Error != "approval_refused" {
		t.Fatalf("denied read: %+v", res.Outcome)
	}
	answer.Store("")
	if res := read(t, e, u, nil, nil); res.OK || res.Error != "approval_refused" {
		t.Fatalf("dismissed read: %+v", res.Outcome)
	}
	// Allow for this session: remembered, not asked again, listed.
	answer.Store("Allow for this session")
	if res := read(t, e, u, nil, map[string]any{"session": "s1"}); !res.OK {
		t.Fatalf("session approval: %+v", res.Outcome)
	}
	n := asked.Load()
	answer.Store("Deny")
	if res := read(t, e, u, nil, map[string]any{"session": "s1"}); !res.OK || asked.Load() != n {
		t.Fatalf("remembered approval: %+v, asked %d→%d", res.Outcome, n, asked.Load())
	}
	if w := write(t, e, u, "append", "B=2\n", map[string]any{"session": "s1"}); !w.OK {
		t.Fatalf("write under a session approval: %+v", w.Outcome)
	}
	// Another session is asked.
	if res := read(t, e, u, nil, map[string]any{"session": "s2"}); res.OK || asked.Load() != n+1 {
		t.Fatalf("other session: %+v", res.Outcome)
	}
	var list engine.ApprovalsResult
	if err := e.Call("sightline/approvals", map[string]any{"session": "s1"}, &list); err != nil || len(list.Approvals) != 1 || list.Approvals[0].Path != ".env" {
		t.Fatalf("approvals: %+v %v", list, err)
	}
	if err := e.Call("sightline/approvals", map[string]any{"session": "s1", "revoke": ".env"}, &list); err != nil || list.Revoked != 1 || len(list.Approvals) != 0 {
		t.Fatalf("revoke: %+v %v", list, err)
	}
	if res := read(t, e, u, nil, map[string]any{"session": "s1"}); res.OK || res.Error != "approval_refused" {
		t.Fatalf("after revoke: %+v", res.Outcome)
	}
	// Denied paths are never asked about.
	n = asked.Load()
	if res := read(t, e, fileURI(root, "secret/plan.txt"), nil, nil); res.Error != "denied" || asked.Load() != n {
		t.Fatalf("denied path: %+v", res.Outcome)
	}
}

// A client that does not announce window.showMessage is never asked.
func TestPolicyNoShowMessageCapability(t *testing.T) {
	userConfig(t, "")
	e, root := start(t, policyFiles, lsptest.Options{})
	e.ShowMessageRequest = func(protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		t.Error("asked a client without window.showMessage")
		return &protocol.MessageActionItem{Title: "Allow once"}
	}
	if res := read(t, e, fileURI(root, ".env"), nil, nil); res.OK || res.Error != "approval_refused" {
		t.Fatalf("read: %+v", res.Outcome)
	}
}
