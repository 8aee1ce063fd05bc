package main

import (
	"bytes"
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

	"github.com/sightline-lsp/sightline/internal/procgroup"
)

// runGroup runs an agent in a process group of its own (an agent may
// relaunch itself in a child), within limit, and ends the whole group
// however it ends.
func runGroup(t *testing.T, cmd *exec.Cmd, limit time.Duration) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	g, err := procgroup.Start(cmd)
	if err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(limit):
		err = fmt.Errorf("still running after %s", limit)
	}
	g.Stop(2 * time.Second)
	return out.String(), err
}

// playedGemini is a Gemini API model server on loopback that plays a list
// of tool calls, one per model call, then a last word ("done"); a prompt's
// turn ends before call stop (the next prompt goes on). Its usage says the prompt took big tokens when it
// answers with call big: Gemini CLI then compresses the history before
// the next call (the summaries it asks for are served too). results are
// the function responses it was sent, in order.
type playedGemini struct {
	mu      sync.Mutex
	calls   []map[string]any
	stop    int
	big     int
	results []string
	life    time.Time // the server answers nothing after it
	next    int       // the call to play next
	stopped bool      // the turn ended at stop
}

func (m *playedGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if time.Now().After(m.life) {
		http.Error(w, "the scripted model's time is over", http.StatusGone)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		fmt.Fprint(w, `{"totalTokens": 100}`)
		return
	}
	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
		Tools            []json.RawMessage `json:"tools"`
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The last content is the answer to the call before, if any (a
	// compressed history has lost the earlier ones: the script keeps its
	// own place).
	last := ""
	if n := len(req.Contents); n > 0 {
		for _, p := range req.Contents[n-1].Parts {
			if bytes.Contains(p, []byte(`"functionResponse"`)) {
				last = string(p)
				break
			}
		}
	}
	var part any = map[string]any{"text": "done"}
	tokens := 10
	stream := strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
	m.mu.Lock()
	if stream && len(req.Tools) > 0 {
		if last != "" {
			m.results = append(m.results, last)
		}
		if m.next < len(m.calls) && !(last != "" && m.next == m.stop && !m.stopped) {
			part = map[string]any{"functionCall": map[string]any{"name": m.calls[m.next]["name"], "args": m.calls[m.next]["input"]}}
			if m.next == m.big {
				tokens = 900_000
			}
			m.next++
		} else if m.next == m.stop {
			m.stopped = true
		}
	} else if req.GenerationConfig.ResponseMimeType == "application/json" {
		// Gemini CLI's own questions (which model routes the turn, who
		// speaks next), in the shapes its schemas ask for.
		part = map[string]any{"text": `{"reasoning": "scripted", "model_choice": "flash", "next_speaker": "user", "complexity_reasoning": "scripted", "complexity_score": 1}`}
	} else if !stream {
		part = map[string]any{"text": "<state_snapshot>the work so far</state_snapshot>"}
	}
	m.mu.Unlock()
	resp, _ := json.Marshal(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": tokens, "candidatesTokenCount": 1, "totalTokenCount": tokens + 1},
	})
	if stream {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

// geminiCLI is the real Gemini CLI's entry point (GEMINI_CLI, else
// testdata/agents' npm install), run with node.
func geminiCLI(t *testing.T) string {
	t.Helper()
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

// TestGeminiCLIEndToEnd runs the real Gemini CLI headless (gemini -p
// --yolo) against the scripted model, with the hooks `sightline hook
// install gemini --project` wrote: an edit of a line never shown is
// denied with the line and the retry lands; the PreCompress "auto" before
// every model call expires nothing (the edit of a line read in the first
// prompt lands in the second); a real compression (the history grew past
// its threshold) expires what was read, so the edit of a line read before
// it is denied, and its retry lands.
func TestGeminiCLIEndToEnd(t *testing.T) {
	gemini := geminiCLI(t)
	c := newCLI(t, agentFiles)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}},`+
		`"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}`), 0o644)
	c.env = append(c.env, "HOME="+home, "USERPROFILE="+home)
	if out, errOut, code := c.run("", "hook", "install", "gemini", "--project"); code != 0 || !strings.Contains(out, "added hooks.BeforeTool") {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	replace := func(old, new string) map[string]any {
		return map[string]any{"name": "replace", "input": map[string]any{"file_path": "f.txt", "instruction": "change it", "old_string": old, "new_string": new}}
	}
	model := &playedGemini{stop: 3, big: 3, life: time.Now().Add(3 * time.Minute), calls: []map[string]any{
		{"name": "read_file", "input": map[string]any{"file_path": "f.txt", "start_line": 1, "end_line": 2}},
		replace("four", "FOUR"), replace("four", "FOUR"),
		// The second prompt: then the history is compressed.
		replace("two", "TWO"),
		replace("one", "ONE"), replace("one", "ONE"),
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("node", append([]string{gemini, "--yolo", "-m", "gemini-2.5-flash"}, args...)...)
		cmd.Dir = c.dir
		// One process (Gemini CLI otherwise relaunches itself in a child),
		// which starts sooner.
		cmd.Env = append(c.env, "GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL="+srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_BROWSER=true", "GEMINI_CLI_NO_RELAUNCH=1")
		if out, err := runGroup(t, cmd, 90*time.Second); err != nil {
			t.Fatalf("gemini %v: %v\n%s", args, err, out)
		}
	}
	run("-p", "Change four to FOUR in f.txt.")
	run("-p", "Now change one and two.", "--resume", "latest")
	model.mu.Lock()
	results := model.results
	model.mu.Unlock()
	if len(results) != 6 {
		t.Fatalf("function responses %d, want 6: %q", len(results), results)
	}
	blocked := func(i int, line string) {
		t.Helper()
		if !strings.Contains(results[i], "Tool execution blocked") || !strings.Contains(results[i], "never shown to you") || !strings.Contains(results[i], line) {
			t.Fatalf("call %d was not denied with %q: %s", i, line, results[i])
		}
	}
	passed := func(i int) {
		t.Helper()
		if strings.Contains(results[i], "blocked") || strings.Contains(results[i], `"error"`) {
			t.Fatalf("call %d failed: %s", i, results[i])
		}
	}
	blocked(1, `4\tfour`)
	passed(2)
	passed(3) // line 2, read in the first prompt: PreCompress "auto" expired nothing
	blocked(4, `1\tone`)
	passed(5)
	if got, _ := os.ReadFile(filepath.Join(c.dir, "f.txt")); string(got) != "ONE\nTWO\nthree\nFOUR\nfive\n" {
		t.Fatalf("file: %q", got)
	}
	session := agentSession(t, c, "gemini-")
	audit, _, _ := c.run("", "audit", "--session", session)
	if strings.Count(audit, "refused unread_range") != 2 {
		t.Fatalf("audit:\n%s", audit)
	}
}

// agentSession is the one ledger session named with prefix.
func agentSession(t *testing.T, c *cli, prefix string) string {
	t.Helper()
	sessions, _, _ := c.run("", "session", "list")
	var found []string
	for _, l := range strings.Split(sessions, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			found = append(found, f[0])
		}
	}
	if len(found) != 1 {
		t.Fatalf("sessions %q, want one %s…:\n%s", found, prefix, sessions)
	}
	return found[0]
}

// TestCopilotCLIEndToEnd runs the real GitHub Copilot CLI in its offline
// BYOK mode against the scripted Messages API model, with the hooks
// `sightline hook install copilot --project` wrote: a view of lines 1-2
// counts, an edit of line 4 is denied with the line and its retry lands,
// a create over a file never read is denied, the ledger session is
// Copilot's own session id, and /compact expires what was read.
func TestCopilotCLIEndToEnd(t *testing.T) {
	copilot := agentBinary(t, "SIGHTLINE_COPILOT", "@github/copilot-linux-*/copilot", "GitHub Copilot CLI")
	c := newCLI(t, agentFiles)
	os.WriteFile(filepath.Join(c.dir, "g.txt"), []byte("keep\n"), 0o644)
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home, "USERPROFILE="+home)
	if out, errOut, code := c.run("", "hook", "install", "copilot", "--project"); code != 0 || !strings.Contains(out, "wrote sightline's hook") {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	f := filepath.Join(c.dir, "f.txt")
	edit := map[string]any{"path": f, "old_str": "four", "new_str": "FOUR"}
	model := &playedModel{calls: []map[string]any{
		{"name": "view", "input": map[string]any{"path": f, "view_range": []int{1, 2}}},
		{"name": "edit", "input": edit},
		{"name": "edit", "input": edit},
		{"name": "create", "input": map[string]any{"path": filepath.Join(c.dir, "g.txt"), "file_text": "replaced\n"}},
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	cmd := exec.Command(copilot, "-p", "Change four to FOUR in f.txt.")
	cmd.Dir = c.dir
	cmd.Env = append(c.env, "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_BASE_URL="+srv.URL,
		"COPILOT_PROVIDER_API_KEY=test", "COPILOT_MODEL=claude-sonnet-4-5", "COPILOT_ALLOW_ALL=true")
	if out, err := runGroup(t, cmd, 90*time.Second); err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	model.mu.Lock()
	results := model.results
	model.mu.Unlock()
	if len(results) != 4 {
		t.Fatalf("tool results %d, want 4: %q", len(results), results)
	}
	if !strings.Contains(results[1], "Denied by preToolUse hook") || !strings.Contains(results[1], `4\tfour`) {
		t.Fatalf("the edit of line 4 was not denied with the line: %s", results[1])
	}
	if strings.Contains(results[2], "Denied") {
		t.Fatalf("the retry was denied: %s", results[2])
	}
	if !strings.Contains(results[3], "Denied by preToolUse hook") {
		t.Fatalf("the create over an unread file was not denied: %s", results[3])
	}
	if got, _ := os.ReadFile(f); string(got) != "one\ntwo\nthree\nFOUR\nfive\n" {
		t.Fatalf("file: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "g.txt")); string(got) != "keep\n" {
		t.Fatalf("g.txt: %q", got)
	}
	session := agentSession(t, c, "copilot-")
	led, _, _ := c.run("", "ledger", "f.txt", "--session", session)
	if !strings.Contains(led, "read 1-") || !strings.Contains(led, "authored 4") {
		t.Fatalf("ledger: %s", led)
	}
	// /compact in the same session (preCompact) expires what was read;
	// Copilot CLI may stay up after compacting: runGroup bounds it.
	compact := exec.Command(copilot, "--resume="+strings.TrimPrefix(session, "copilot-"), "-p", "/compact")
	compact.Dir, compact.Env = c.dir, cmd.Env
	if out, err := runGroup(t, compact, 30*time.Second); err != nil && !strings.Contains(err.Error(), "still running") {
		t.Fatalf("copilot /compact: %v\n%s", err, out)
	}
	if led, _, _ = c.run("", "ledger", "f.txt", "--session", session); !strings.Contains(led, "never_read") {
		t.Fatalf("after /compact: %s", led)
	}
}
