package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// playedGemini is a scripted Gemini API model on loopback
// (GOOGLE_GEMINI_BASE_URL): each streamGenerateContent request that offers
// tools is answered with the next function call of calls, then with text;
// results keeps the function responses the agent sent back, in order.
type playedGemini struct {
	mu      sync.Mutex
	calls   []map[string]any // {"name": ..., "args": ...}
	results []string
	seen    []string
}

func (m *playedGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools            []json.RawMessage `json:"tools"`
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.seen = append(m.seen, r.URL.Path+" "+string(body[:min(len(body), 300)]))
	m.mu.Unlock()
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		fmt.Fprint(w, `{"totalTokens": 10}`)
		return
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var results []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if len(p.FunctionResponse) > 0 {
				results = append(results, string(p.FunctionResponse))
			}
		}
	}
	part := map[string]any{"text": "done"}
	if req.GenerationConfig.ResponseMimeType == "application/json" {
		// Gemini CLI's own questions (which model routes the turn, who
		// speaks next), in the shapes its schemas ask for.
		part["text"] = `{"reasoning": "scripted", "model_choice": "flash", "next_speaker": "user", "complexity_reasoning": "scripted", "complexity_score": 1}`
	}
	if len(req.Tools) > 0 {
		m.mu.Lock()
		m.results = results
		if len(results) < len(m.calls) {
			part = map[string]any{"functionCall": m.calls[len(results)]}
		}
		m.mu.Unlock()
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
	}
	b, _ := json.Marshal(resp)
	if !strings.Contains(r.URL.Path, "streamGenerateContent") {
		w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

// geminiCLI is the real Gemini CLI's entry point (GEMINI_CLI, else
// testdata/agents' npm install).
func geminiCLI(t *testing.T) string {
	gemini := os.Getenv("GEMINI_CLI")
	if gemini == "" {
		gemini, _ = filepath.Abs("../../testdata/agents/node_modules/@google/gemini-cli/bundle/gemini.js")
	}
	if _, err := os.Stat(gemini); err != nil {
		requireOrSkip(t, "Gemini CLI (npm ci in testdata/agents, or GEMINI_CLI)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node")
	}
	return gemini
}

// TestGeminiACPMechanicsReadIsNotShown runs the real Gemini CLI behind
// `sightline acp`, driven by a scripted editor that serves its file
// requests and a scripted model: read_file of lines 1-20 (Gemini reads the
// disk itself), then a replace of line 50, never shown to the model.
// Gemini's replace asks the editor for the whole file to compute the edit:
// that read is the tool's mechanics, not something the model was shown,
// so it must not count. The permission for the edit is refused with the
// lines to read, the file is unchanged and the ledger claims no line the
// model never saw.
func TestGeminiACPMechanicsReadIsNotShown(t *testing.T) {
	t.Parallel() // mostly waiting on the agent
	gemini := geminiCLI(t)
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	text := b.String()
	c := newCLI(t, map[string]string{"svc.txt": text})
	f := filepath.Join(c.dir, "svc.txt")
	model := &playedGemini{calls: []map[string]any{
		{"name": "read_file", "args": map[string]any{"file_path": f, "start_line": 1, "end_line": 20}},
		{"name": "replace", "args": map[string]any{"file_path": f, "instruction": "Change line 50.", "old_string": "line 50\n", "new_string": "LINE 50\n"}},
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	script, _ := filepath.Abs("../../testdata/agents/acp-gemini.mjs")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = c.dir
	cmd.Env = append(c.env, "HOME="+t.TempDir(), "SIGHTLINE_BIN="+c.bin, "WORKSPACE="+c.dir, "GEMINI_CLI="+gemini,
		"GOOGLE_GEMINI_BASE_URL="+srv.URL, "GEMINI_API_KEY=test", "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_BROWSER=true")
	cmd.WaitDelay = 5 * time.Second // a process the agent left must not hold the test
	out, err := cmd.CombinedOutput()
	model.mu.Lock()
	results := model.results
	model.mu.Unlock()
	t.Logf("editor:\n%s\nresults: %q\nseen: %q", out, results, model.seen)
	if err != nil {
		t.Fatalf("the scripted editor: %v", err)
	}
	if got, _ := os.ReadFile(f); string(got) != text {
		t.Fatalf("line 50, never shown to the model, was changed:\n%s", got)
	}
	if len(results) != 2 || !strings.Contains(results[1], `"error"`) {
		t.Fatalf("the replace's result: %q, want an error", results)
	}
	// Gemini CLI read the disk itself and told the editor only "Read lines
	// 1-20 of 61": nothing of the file is claimed shown.
	sid := ""
	for _, l := range strings.Split(string(out), "\n") {
		var m struct{ Kind, V json.RawMessage }
		if json.Unmarshal([]byte(l), &m) == nil && string(m.Kind) == `"session"` {
			json.Unmarshal(m.V, &sid)
		}
	}
	if sid == "" {
		t.Fatal("no session id in the editor's output")
	}
	ledgerOut, errOut, code := c.run("", "ledger", "svc.txt", "--json", "--session", "acp-"+sid)
	if code != 0 || !strings.Contains(ledgerOut, `"read":[]`) || !strings.Contains(ledgerOut, `"authored":[]`) {
		t.Fatalf("the ledger after Gemini's replace: %d %s %s", code, ledgerOut, errOut)
	}
}
