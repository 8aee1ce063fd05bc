package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// bigAnswer is a read's answer of about n bytes: one JSON string of lines.
func bigAnswer(n int) json.RawMessage {
	line := strings.Repeat("x", 60) + "\\n"
	var sb strings.Builder
	sb.Grow(n + 64)
	sb.WriteString(`{"content":"`)
	for sb.Len() < n {
		sb.WriteString(line)
	}
	sb.WriteString(`"}`)
	return json.RawMessage(sb.String())
}

// rawServer answers every call on a socket with answer, written from one
// prebuilt buffer, framed as the caller's messages are (it reads both
// framings), so that what a test measures is the caller's side alone.
func rawServer(t testing.TB, answer json.RawMessage) string {
	t.Helper()
	return rawSocket(t, func(nc net.Conn) { serveRaw(nc, answer) })
}

func serveRaw(nc net.Conn, answer json.RawMessage) {
	defer nc.Close()
	in := bufio.NewReader(nc)
	headers := false
	for {
		var body []byte
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		if n, ok := strings.CutPrefix(string(line), "Content-Length: "); ok {
			size, _ := strconv.Atoi(strings.TrimSpace(n))
			in.ReadBytes('\n')
			body = make([]byte, size)
			if _, err := io.ReadFull(in, body); err != nil {
				return
			}
		} else {
			body = line
		}
		var m struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &m) != nil {
			return
		}
		if m.Method == methodFrames {
			headers = true
		}
		if m.ID == nil {
			continue
		}
		head := []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(*m.ID) + `,"result":`)
		if m.Method == MethodPing {
			head = append(head, "{}}"...)
			answerRaw(nc, headers, head)
			continue
		}
		answerRaw(nc, headers, head, answer, []byte("}"))
	}
}

func answerRaw(nc net.Conn, headers bool, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	var bufs net.Buffers
	if headers {
		bufs = append(bufs, []byte("Content-Length: "+strconv.Itoa(n)+"\r\n\r\n"))
	}
	bufs = append(bufs, parts...)
	if !headers {
		bufs = append(bufs, []byte("\n"))
	}
	bufs.WriteTo(nc)
}

// allocated is the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A large answer costs the caller about its size, not a buffer grown a few
// kilobytes at a time and copied on the way: the frame is read into one
// allocation of its length, and the result handed on without a copy of it.
func TestLargeAnswerCostsItsBytes(t *testing.T) {
	answer := bigAnswer(8 << 20)
	sock := rawServer(t, answer)
	ctx := context.Background()
	c, err := Dial(ctx, sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Call(ctx, MethodStatus, nil); err != nil { // the connection's first answer
		t.Fatal(err)
	}
	var a Answer
	n := allocated(func() {
		a, err = c.CallUnprobed(ctx, MethodStatus, nil)
	})
	raw := a.Result
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != string(answer) {
		t.Fatalf("answer of %d bytes, want the %d sent", len(raw), len(answer))
	}
	if per := float64(n) / float64(len(answer)); per > 1.3 {
		t.Fatalf("the caller allocated %.1f bytes per byte of an answer of %d bytes, want at most 1.3", per, len(answer))
	}
}

// BenchmarkLargeAnswer is one call whose answer is 16 MB, the caller's side
// alone (the server writes a prebuilt buffer): bytes allocated per call and
// throughput of the answer.
func BenchmarkLargeAnswer(b *testing.B) {
	answer := bigAnswer(16 << 20)
	sock := rawServer(b, answer)
	ctx := context.Background()
	c, err := Dial(ctx, sock, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a, err := c.Call(ctx, MethodStatus, nil)
		if err != nil || len(a.Result) != len(answer) {
			b.Fatalf("%v: %d bytes", err, len(a.Result))
		}
	}
}

// pipeStream is a stream over one end of a socket pair, the other end
// returned raw.
func pipeStream(t testing.TB, max int) (*stream, net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return newStream(a, max), b
}

func readAll(t testing.TB, max int, wire string) (frames []string, err error) {
	t.Helper()
	st, peer := pipeStream(t, max)
	go func() {
		peer.Write([]byte(wire))
		peer.Close()
	}()
	for {
		f, _, err := st.ReadFrame(context.Background())
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(f))
	}
}

func TestStreamReadsBothFramings(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{}}`
	big := `{"jsonrpc":"2.0","id":2,"result":"` + strings.Repeat("y", 3*readBuffer) + `"}`
	wire := body + "\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body +
		"content-length:" + strconv.Itoa(len(big)) + "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + big +
		big + "\n"
	frames, err := readAll(t, 0, wire)
	if err != io.EOF {
		t.Fatalf("end: %v, want io.EOF at a message's end", err)
	}
	want := []string{body, body, big, big}
	if len(frames) != len(want) {
		t.Fatalf("read %d messages, want %d", len(frames), len(want))
	}
	for i := range want {
		if frames[i] != want[i] {
			t.Fatalf("message %d: %.60q, want %.60q", i, frames[i], want[i])
		}
	}
}

func TestStreamRefusesBadFrames(t *testing.T) {
	for _, c := range []struct{ name, wire, want string }{
		{"over the limit", "Content-Length: 1001\r\n\r\n{}", "over the limit of 1000 bytes"},
		{"huge", "Content-Length: 99999999999999999999\r\n\r\n", "not a positive number"},
		{"zero", "Content-Length: 0\r\n\r\n", "not a positive number"},
		{"negative", "Content-Length: -5\r\n\r\n", "not a positive number"},
		{"no colon", "Content-Length 5\r\n\r\n", "has no colon"},
		{"no length", "Content-Type: x\r\n\r\n{}", "no Content-Length"},
		{"header cut", "Content-Length: 5\r\n", "unexpected EOF"},
		{"body cut", "Content-Length: 5\r\n\r\n{}", "unexpected EOF"},
		{"long line", strings.Repeat("x", 1200) + "\n", "a line over the limit of 1000 bytes"},
		{"line cut", `{"jsonrpc"`, "unexpected EOF"},
		{"header line too long", "C" + strings.Repeat(" ", 2*readBuffer), "header line longer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(t, 1000, c.wire)
			if err == nil || err == io.EOF || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// A caller's first message says it reads headers; the server then writes
// them, and a caller that has read one writes them too. Until then, both
// write lines, which a server or caller of an earlier build reads.
func TestStreamWritesHeadersOnceThePeerReadsThem(t *testing.T) {
	st, peer := pipeStream(t, 0)
	in := bufio.NewReader(peer)
	msg := jsonrpc2.NewNotification("m", nil)
	go st.Write(context.Background(), msg)
	if line, _ := in.ReadString('\n'); line != `{"jsonrpc":"2.0","method":"m"}`+"\n" {
		t.Fatalf("first write %q, want a line", line)
	}
	go peer.Write([]byte("Content-Length: 2\r\n\r\n{}"))
	if _, _, err := st.ReadFrame(context.Background()); err != nil {
		t.Fatal(err)
	}
	go st.Write(context.Background(), msg)
	head, _ := in.ReadString('\n')
	in.ReadString('\n')
	body := make([]byte, 30)
	io.ReadFull(in, body)
	if head != "Content-Length: 30\r\n" || string(body) != `{"jsonrpc":"2.0","method":"m"}` {
		t.Fatalf("after a header frame: %q %q, want a header frame", head, body)
	}
}

// Callers and servers of earlier builds write and read lines only: a
// caller of this build works with such a server (the answers stay lines),
// and such a caller with a server of this build.
func TestEarlierBuildsStillUnderstood(t *testing.T) {
	ctx := context.Background()
	answer := bigAnswer(200 << 10)

	// A server of an earlier build: jsonrpc2's own line framing.
	p := filepath.Join(t.TempDir(), "1-0.sock")
	ln, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		conn := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(nc))
		conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			if !req.IsCall() {
				return nil, nil
			}
			return answer, nil
		})
	}()
	c, err := Dial(ctx, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		a, err := c.Call(ctx, MethodStatus, nil)
		if err != nil || string(a.Result) != string(answer) || a.Attachment != "" {
			t.Fatalf("a server writing lines: %v, %d bytes", err, len(a.Result))
		}
	}
	c.Close()

	// A caller of an earlier build, with a server of this build.
	l, err := Listen(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go l.Serve(ctx, func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) { return answer, nil }, func() {}
	})
	nc, err := net.Dial("unix", l.Path)
	if err != nil {
		t.Fatal(err)
	}
	old := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(nc))
	old.Go(ctx, jsonrpc2.MethodNotFoundHandler)
	defer old.Close()
	for range 2 {
		var raw json.RawMessage
		if _, err := old.Call(ctx, MethodStatus, nil, &raw); err != nil || string(raw) != string(answer) {
			t.Fatalf("a caller reading lines: %v, %d bytes", err, len(raw))
		}
	}
}

// An answer kept by the caller is not overwritten by the answers after it.
func TestAnswersOwnTheirBytes(t *testing.T) {
	ctx := context.Background()
	l, err := Listen(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go l.Serve(ctx, func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			var p string
			json.Unmarshal(req.Params(), &p)
			return p, nil
		}, func() {}
	})
	c, err := Dial(ctx, l.Path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var kept []json.RawMessage
	for i := range 50 {
		a, err := c.CallUnprobed(ctx, "m", strings.Repeat(strconv.Itoa(i%10), 10+i*997))
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, a.Result)
	}
	for i, raw := range kept {
		if want := `"` + strings.Repeat(strconv.Itoa(i%10), 10+i*997) + `"`; string(raw) != want {
			t.Fatalf("answer %d changed after later answers: %.40q", i, raw)
		}
	}
}

// FuzzStreamRead: whatever a peer sends, the reader returns frames or an
// error and never panics; no frame is longer than the bytes it was read
// from, and a length over the limit is refused (its test above), never
// allocated.
func FuzzStreamRead(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}{}\n"))
	f.Add([]byte("content-length:   7 \nX: y\n\n{\"a\":1}"))
	f.Add([]byte("Content-Length: 999999999999\r\n\r\n"))
	f.Add([]byte("C\r\n\r\n"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n\n\n"))
	f.Fuzz(func(t *testing.T, wire []byte) {
		check := func(st *stream) {
			total := 0
			for range len(wire) + 1 {
				frame, n, err := st.ReadFrame(context.Background())
				if err != nil {
					return
				}
				total += int(n)
				if len(frame) > int(n) || total > len(wire) {
					t.Fatalf("frame of %d bytes from %d read, %d in all of %d sent", len(frame), n, total, len(wire))
				}
			}
			t.Fatal("more frames than bytes")
		}
		check(newStream(struct {
			io.Reader
			io.Writer
			io.Closer
		}{strings.NewReader(string(wire)), io.Discard, io.NopCloser(nil)}, 1<<16))
		// A server's side, whose frames grow as their bytes come, within
		// its budget, which it has back when the reading ends.
		a, peer := net.Pipe()
		defer a.Close()
		go func() {
			peer.Write(wire)
			peer.Close()
		}()
		b := newBudget(1 << 16)
		check(newServerStream(a, 1<<16, b, time.Second, nil))
		if left := b.left.Load(); left != 1<<16 {
			t.Fatalf("the budget holds %d bytes after the reading, want %d", left, 1<<16)
		}
	})
}

// A server answers a large result with one copy of it, into the message
// written whole with its header (no copy to make room for the header).
func TestLargeAnswerWrittenOnce(t *testing.T) {
	ctx := context.Background()
	answer := bigAnswer(8 << 20)
	l, err := Listen(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go l.Serve(ctx, func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			return jsonrpc2.RawMessage(answer), nil
		}, func() {}
	})
	nc, err := net.Dial("unix", l.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	in := bufio.NewReader(nc)
	nc.Write([]byte(`{"jsonrpc":"2.0","method":"` + methodFrames + `"}` + "\n"))
	var head string
	n := allocated(func() {
		nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}` + "\n"))
		head, _ = in.ReadString('\n')
		in.ReadString('\n')
		size, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "Content-Length:")))
		io.CopyN(io.Discard, in, int64(size))
	})
	if !strings.HasPrefix(head, "Content-Length: ") {
		t.Fatalf("answer framed %q, want headers after %s", head, methodFrames)
	}
	if per := float64(n) / float64(len(answer)); per > 1.3 {
		t.Fatalf("the server allocated %.1f bytes per byte of an answer of %d bytes, want at most 1.3", per, len(answer))
	}
}

// The answers read without jsonrpc2's decoder are exactly the success
// answers it writes; anything else is left to it.
func TestAnswerShapes(t *testing.T) {
	for _, c := range []struct {
		frame  string
		ok     bool
		id     int64
		result string
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"a":[1,"}"]}}`, true, 7, `{"a":[1,"}"]}`},
		{`{"jsonrpc":"2.0","id":0,"result":null}`, true, 0, `null`},
		{`{"jsonrpc":"2.0","id":1,"result":{"a":1},"error":{"code":1,"message":"x"}}`, false, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{"a":1}} `, false, 0, ""},
		{`{"jsonrpc":"2.0","id":01,"result":1}`, false, 0, ""},
		{`{"jsonrpc":"2.0","id":"1","result":1}`, false, 0, ""},
		{`{"jsonrpc":"2.0","id":99999999999999999999,"result":1}`, false, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"result":}`, false, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, false, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{"a":1}`, false, 0, ""},
	} {
		msg, id, ok := answer([]byte(c.frame))
		if ok != c.ok {
			t.Fatalf("%s: read %v, want %v", c.frame, ok, c.ok)
		}
		if !ok {
			continue
		}
		r := msg.(*jsonrpc2.Response)
		if r.ID() != jsonrpc2.NewNumberID(c.id) || id != c.id || string(r.Result()) != c.result || r.Err() != nil {
			t.Fatalf("%s: id %v result %s, want %d %s", c.frame, r.ID(), r.Result(), c.id, c.result)
		}
	}
}

// FuzzAnswer: an answer read without jsonrpc2's decoder is the one it reads.
func FuzzAnswer(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"a":[1,"}"]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"a":1},"b":{"c":2}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":"\u00e9\ud800"}`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, _, ok := answer(frame)
		if !ok {
			return
		}
		want, err := jsonrpc2.DecodeMessage(frame)
		if err != nil {
			t.Fatalf("%q read as an answer, jsonrpc2 refuses it: %v", frame, err)
		}
		r, w := msg.(*jsonrpc2.Response), want.(*jsonrpc2.Response)
		if r.ID() != w.ID() || string(r.Result()) != string(w.Result()) || w.Err() != nil {
			t.Fatalf("%q: read %v %s, jsonrpc2 reads %v %s %v", frame, r.ID(), r.Result(), w.ID(), w.Result(), w.Err())
		}
	})
}

// BenchmarkLargeRequest is one call whose request is 16 MB (a large write's
// content), the server's side: its reading of the frame and the handler's
// answer of a few bytes.
func BenchmarkLargeRequest(b *testing.B) {
	l, err := Listen(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go l.Serve(context.Background(), func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			return len(req.Params()), nil
		}, func() {}
	})
	nc, err := net.Dial("unix", l.Path)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	in := bufio.NewReader(nc)
	params := bigAnswer(16 << 20)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":` + string(params) + `}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		answerRaw(nc, true, body)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.TrimSpace(line) == "" {
				break
			}
		}
		if _, err := in.ReadString('}'); err != nil {
			b.Fatal(err)
		}
	}
}
