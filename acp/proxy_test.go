package acp_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/acp"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/route"
)

// router is the router over a workspace on disk, as `sightline acp` makes
// one without a language server.
func router(t testing.TB) *route.Router {
	r, _ := routerAt(t)
	return r
}

// routerAt is router, with its workspace root.
func routerAt(t testing.TB) (*route.Router, string) {
	return routerWith(t, nil)
}

// routerWith is routerAt with the configuration edit makes.
func routerWith(t testing.TB, edit func(*config.Config)) (*route.Router, string) {
	root, state := t.TempDir(), t.TempDir()
	cfg := config.Default()
	if edit != nil {
		edit(&cfg)
	}
	b := route.New(route.Options{Root: root, StateDir: state, NoBridge: true,
		OpenLocal: func(ctx context.Context) (*engine.Env, error) {
			return engine.Setup(ctx, engine.Options{Roots: []string{root}, Config: cfg, StateDir: state, Ephemeral: true}), nil
		}})
	t.Cleanup(func() { b.Close(context.Background()) })
	return b, root
}

// pipes is a proxy between an editor and an agent, each end an OS pipe as
// in the real process.
type pipes struct {
	editorW, agentW *os.File // what the editor and the agent write
	editorR, agentR *os.File // what they read
	done            chan error
}

func start(t testing.TB, o acp.Options) *pipes {
	t.Helper()
	fromEditor, editorW, _ := os.Pipe()
	editorR, toEditor, _ := os.Pipe()
	agentR, toAgent, _ := os.Pipe()
	fromAgent, agentW, _ := os.Pipe()
	p := &pipes{editorW: editorW, editorR: editorR, agentW: agentW, agentR: agentR, done: make(chan error, 1)}
	if o.Router == nil {
		o.Router = router(t)
	}
	go func() { p.done <- acp.New(o).Run(context.Background(), fromEditor, toEditor, toAgent, fromAgent) }()
	t.Cleanup(func() {
		editorW.Close()
		agentW.Close()
		<-p.done
		for _, f := range []*os.File{fromEditor, toEditor, editorR, agentR, toAgent, fromAgent} {
			f.Close()
		}
	})
	return p
}

// TestForwardsEveryLineUntouched: lines the proxy has no business with
// reach the other side byte for byte, whatever they hold: unknown methods,
// odd spacing and escapes, empty lines, a last line without its newline,
// and from the editor (the trusted side) malformed JSON and a line longer
// than the proxy reads (the agent's are refused: TestAgentLinesReadExactly,
// TestLongAgentLineRefused).
func TestForwardsEveryLineUntouched(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"fs/write_text_file","id":9,"params":{"content":"` + strings.Repeat("x", 5000) + `"}}` + "\n"
	common := []string{
		`{"jsonrpc":"2.0","id":7,"method":"_vendor/thing","params":{"a":"\u00e9 </b> &"}}` + "\n",
		`{ "jsonrpc" : "2.0" , "id" : "s-1" , "method" : "session/prompt" , "params" : { } }` + "\r\n",
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}}` + "\n",
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n",
		"\n",
		" \t\r\n",
		`{"jsonrpc":"2.0","id":3,"result":{"content":"unknown request's answer"}}` + "\n",
	}
	last := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`
	for _, dir := range []string{"editor to agent", "agent to editor"} {
		t.Run(dir, func(t *testing.T) {
			p := start(t, acp.Options{MaxLine: 1024})
			w, r := p.editorW, p.agentR
			lines := append(append([]string{}, common...), `{not json at all`+"\n", long, last)
			if dir == "agent to editor" {
				w, r = p.agentW, p.editorR
				lines = append(append([]string{}, common...), last)
			}
			want := strings.Join(lines, "")
			go func() {
				for _, l := range lines {
					io.WriteString(w, l)
				}
				w.Close()
			}()
			got := make([]byte, len(want))
			r.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.ReadFull(r, got); err != nil {
				t.Fatalf("read %d bytes of %d: %v", len(got), len(want), err)
			}
			if !bytes.Equal(got, []byte(want)) {
				t.Fatalf("forwarded bytes differ:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestAgentGoneEndsTheProxy: the agent closing its output ends Run; the
// editor closing its input closes the agent's.
func TestAgentGoneEndsTheProxy(t *testing.T) {
	p := start(t, acp.Options{})
	p.agentW.Close()
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy did not end when the agent's output ended")
	}

	q := start(t, acp.Options{Grace: 200 * time.Millisecond})
	q.editorW.Close()
	q.agentR.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := q.agentR.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("the agent's input after the editor left: %d %v, want EOF", n, err)
	}
	select {
	case err := <-q.done:
		if err != acp.ErrEditorGone {
			t.Fatalf("Run: %v, want ErrEditorGone (the agent kept its output open)", err)
		}
		q.done <- err
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy did not end after its grace period")
	}
}

// BenchmarkForwardLatency measures the latency a message gains through the
// proxy: the time from the sender's write to the receiver's read of one
// line, through the proxy, less the same through one pipe. It reports the
// median and the 99th percentile of what the proxy adds, in microseconds.
func BenchmarkForwardLatency(b *testing.B) {
	chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("word ", 40) + `"}}}}` + "\n"
	update := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}}}` + "\n"
	prompt := `{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":"fix the failing test in parser.go"}]}}` + "\n"
	for _, c := range []struct {
		name, line string
		fromAgent  bool
	}{
		{"agent_message_chunk", chunk, true},
		{"tool_call_update", update, true},
		{"session_prompt", prompt, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			direct := latencies(b, c.line, nil)
			p := start(b, acp.Options{})
			w, r := p.editorW, p.agentR
			if c.fromAgent {
				w, r = p.agentW, p.editorR
			}
			through := latencies(b, c.line, &[2]*os.File{w, r})
			sort.Slice(direct, func(i, j int) bool { return direct[i] < direct[j] })
			sort.Slice(through, func(i, j int) bool { return through[i] < through[j] })
			q := func(s []time.Duration, f float64) time.Duration { return s[int(f*float64(len(s)-1))] }
			b.ReportMetric(float64(q(through, .5)-q(direct, .5))/1e3, "added-p50-µs")
			b.ReportMetric(float64(q(through, .99)-q(direct, .99))/1e3, "added-p99-µs")
			b.ReportMetric(float64(q(through, .5))/1e3, "p50-µs")
			b.ReportMetric(float64(q(through, .99))/1e3, "p99-µs")
		})
	}
}

// latencies times b.N lines from write to read, through ends (else one
// pipe).
func latencies(b *testing.B, line string, ends *[2]*os.File) []time.Duration {
	var w, r *os.File
	if ends != nil {
		w, r = ends[0], ends[1]
	} else {
		var err error
		if r, w, err = os.Pipe(); err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
	}
	buf := make([]byte, len(line))
	out := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := io.WriteString(w, line); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(r, buf); err != nil {
			b.Fatal(err)
		}
		out = append(out, time.Since(t0))
	}
	b.StopTimer()
	if string(buf) != line {
		b.Fatalf("forwarded %q, want %q", buf, line)
	}
	return out
}

// TestEditorsMalformedMessagesPassUntouched: the editor's messages shaped
// otherwise than ACP's schema says pass as they came (the editor is the
// trusted side: the agent answers them), and the proxy goes on. The agent's
// are refused (TestAgentLinesReadExactly).
func TestEditorsMalformedMessagesPassUntouched(t *testing.T) {
	fromEditor := []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/x","mcpServers":"bad"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"cwd":"/x","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/new","params":[]}`,
		`{"jsonrpc":"2.0","id":{"odd":true},"result":{"content":5}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/x","Cwd":"/y","cwd":"/z"}}`,
	}
	mcp := &acp.MCPServer{Name: "sightline", Command: "/bin/sightline", SessionDir: t.TempDir(),
		Args: func(session, file string) []string { return []string{"mcp"} }}
	p := start(t, acp.Options{MCP: mcp})
	want := strings.Join(fromEditor, "\n") + "\n"
	go io.WriteString(p.editorW, want)
	got := make([]byte, len(want))
	p.agentR.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(p.agentR, got); err != nil {
		t.Fatalf("read %q: %v", got, err)
	}
	if string(got) != want {
		t.Fatalf("forwarded:\n%s\nwant:\n%s", got, want)
	}
}
