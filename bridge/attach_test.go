package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// everyByte is about n bytes of lines holding every ASCII byte (those JSON
// escapes among them) and non-ASCII text.
func everyByte(n int) string {
	var line strings.Builder
	for c := range 0x80 {
		line.WriteByte(byte(c))
	}
	line.WriteString("é€\u2028\u2029𝄞\"\\\t\n")
	return strings.Repeat(line.String(), n/line.Len()+1)
}

// attachServer serves calls with text apart from the JSON {"content":""}
// to a caller that reads attachments, and the whole JSON (text quoted) to
// one that does not.
func attachServer(t testing.TB, text string) *Listener {
	t.Helper()
	l, err := Listen(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	whole, _ := json.Marshal(map[string]string{"content": text})
	go l.Serve(context.Background(), func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			if !req.IsCall() {
				return nil, nil
			}
			if Attaches(ctx) {
				return Attached{Result: []byte(`{"content":""}`), Attachment: text}, nil
			}
			return jsonrpc2.RawMessage(whole), nil
		}, func() {}
	})
	return l
}

// A text of 9 MB with every byte JSON escapes reaches the caller apart
// from its JSON, byte for byte, in one allocation of its size.
func TestAttachmentRoundTrip(t *testing.T) {
	ctx := context.Background()
	text := everyByte(9 << 20)
	l := attachServer(t, text)
	c, err := Dial(ctx, l.Path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Call(ctx, "m", nil); err != nil { // the connection's first answer
		t.Fatal(err)
	}
	var a Answer
	n := allocated(func() { a, err = c.CallUnprobed(ctx, "m", nil) })
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Result) != `{"content":""}` || a.Attachment != text {
		t.Fatalf("answer %.60q with an attachment of %d bytes, want the %d sent", a.Result, len(a.Attachment), len(text))
	}
	if per := float64(n) / float64(len(text)); per > 1.1 {
		t.Fatalf("the caller allocated %.2f bytes per byte of an attachment of %d bytes, want at most 1.1", per, len(text))
	}
	// Many calls: each answer keeps its own text.
	var kept []Answer
	for range 20 {
		a, err := c.Call(ctx, "m", nil)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, a)
	}
	for _, a := range kept {
		if a.Attachment != text {
			t.Fatal("an attachment changed after later answers")
		}
	}
}

// A caller of an earlier build does not ask for attachments: it gets the
// whole JSON, in lines or headers as before.
func TestAttachmentsOnlyToCallersThatAsk(t *testing.T) {
	ctx := context.Background()
	text := everyByte(100 << 10)
	whole, _ := json.Marshal(map[string]string{"content": text})
	l := attachServer(t, text)
	for _, frames := range []bool{false, true} {
		nc, err := net.Dial("unix", l.Path)
		if err != nil {
			t.Fatal(err)
		}
		// Lines, or the headers of the build before attachments.
		old := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(nc))
		if frames {
			old = jsonrpc2.NewConn(newStream(nc, 0))
		}
		old.Go(ctx, jsonrpc2.MethodNotFoundHandler)
		if frames {
			old.Notify(ctx, methodFrames, nil)
		}
		var raw json.RawMessage
		if _, err := old.Call(ctx, "m", nil, &raw); err != nil || string(raw) != string(whole) {
			t.Fatalf("a caller of an earlier build (frames %v): %v, %.60q", frames, err, raw)
		}
		old.Close()
	}
}

// A handler that answers apart to a caller that does not read attachments
// is a mistake answered as an internal error, never a text dropped.
func TestAttachedToACallerThatDoesNotRead(t *testing.T) {
	ctx := context.Background()
	l, err := Listen(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go l.Serve(ctx, func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			return Attached{Result: []byte(`{"content":""}`), Attachment: "x"}, nil
		}, func() {}
	})
	nc, err := net.Dial("unix", l.Path)
	if err != nil {
		t.Fatal(err)
	}
	old := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(nc))
	old.Go(ctx, jsonrpc2.MethodNotFoundHandler)
	defer old.Close()
	var raw json.RawMessage
	_, err = old.Call(ctx, "m", nil, &raw)
	var re *jsonrpc2.Error
	if !errors.As(err, &re) || re.Code != jsonrpc2.InternalError {
		t.Fatalf("answer %s %v, want an internal error", raw, err)
	}
}

// A caller that reads attachments sends no batch: their answers could not
// carry them. One ends the connection.
func TestBatchFromAnAttachingCallerRefused(t *testing.T) {
	l := attachServer(t, "x")
	nc, err := net.Dial("unix", l.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write([]byte(`{"jsonrpc":"2.0","method":"` + methodFrames + `","params":{"attachments":true}}` + "\n"))
	nc.Write([]byte(` [{"jsonrpc":"2.0","id":1,"method":"m"}]` + "\n"))
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := io.ReadAll(nc); err != nil || len(b) != 0 {
		t.Fatalf("a batch answered %q (%v), want the connection ended", b, err)
	}
}

// readCaller reads wire as a caller's connection does (it reads
// attachments), returning the error that ends it.
func readCaller(t testing.TB, max int, wire string, calls int) error {
	t.Helper()
	st, peer := pipeStream(t, max)
	st.takes = true
	cs := callerStream{st, &inbox{}}
	cs.in.waiting = calls
	go func() {
		peer.Write([]byte(wire))
		peer.Close()
	}()
	for {
		if _, _, err := cs.Read(context.Background()); err != nil {
			return err
		}
	}
}

func framedAttachment(body, att string, length int) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\nAttachment-Length: " + strconv.Itoa(length) + "\r\n\r\n" + body + att
}

// What a server sends apart that cannot be a call's answer's text is
// refused, with an error that ends the connection: never a hang, never
// memory over the limit.
func TestAttachmentsRefused(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"result":{"content":""}}`
	for _, c := range []struct{ name, wire, want string }{
		{"cut", framedAttachment(ok, "abc", 5), "unexpected EOF"},
		{"zero", framedAttachment(ok, "", 0), "Attachment-Length \"0\" is not a positive number"},
		{"negative", framedAttachment(ok, "", -1), "not a positive number"},
		{"garbage", strings.Replace(framedAttachment(ok, "abc", 3), "Length: 3", "Length: 3x", 1), "not a positive number"},
		{"over the limit", framedAttachment(ok, "", 2000), "over the limit"},
		{"together over the limit", framedAttachment(ok, "", 990), "over the limit"},
		{"no Content-Length", "Attachment-Length: 3\r\n\r\nabc", "no Content-Length"},
		{"a notification", framedAttachment(`{"jsonrpc":"2.0","method":"m"}`, "abc", 3), "not a success answer"},
		{"an error answer", framedAttachment(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, "abc", 3), "not a success answer"},
		{"to no call", framedAttachment(ok, "abc", 3) + framedAttachment(strings.Replace(ok, ":1,", ":2,", 1), "abc", 3), "not under way"},
		{"twice to a call", framedAttachment(ok, "abc", 3) + framedAttachment(ok, "abc", 3), "not under way"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := readCaller(t, 1000, c.wire, 1)
			if err == nil || err == io.EOF || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	// A server reads none: no caller sends one.
	_, err := readAll(t, 1000, framedAttachment(ok, "abc", 3))
	if err == nil || !strings.Contains(err.Error(), "Attachment-Length") {
		t.Fatalf("a server read an attachment: %v", err)
	}
}

// A call that ended before its answer came (cancelled) does not keep its
// attachment when it comes late.
func TestLateAttachmentDropped(t *testing.T) {
	in := &inbox{}
	in.begin()
	if text := in.end(jsonrpc2.NewNumberID(1), false); text != "" {
		t.Fatal(text)
	}
	if err := in.put(1, "late"); err != nil {
		t.Fatal(err)
	}
	if len(in.got) != 0 || len(in.gone) != 0 {
		t.Fatalf("the inbox keeps %d texts and %d calls after a late answer", len(in.got), len(in.gone))
	}
	// Nor its mark when its answer has no attachment, or is an error.
	for id, frame := range map[int64]string{
		3: `{"jsonrpc":"2.0","id":3,"result":{}}`,
		4: `{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"x"}}`,
	} {
		in.begin()
		in.end(jsonrpc2.NewNumberID(id), false)
		st, peer := pipeStream(t, 0)
		go peer.Write([]byte(frame + "\n"))
		if _, _, err := (callerStream{st, in}).Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(in.gone) != 0 {
			t.Fatalf("the inbox keeps the mark of call %d after its answer %s", id, frame)
		}
	}
	// One taken in time is the call's.
	in.begin()
	if err := in.put(2, "t"); err != nil {
		t.Fatal(err)
	}
	if text := in.end(jsonrpc2.NewNumberID(2), true); text != "t" || len(in.got) != 0 {
		t.Fatalf("took %q, %d left", text, len(in.got))
	}
}

// A server that stops in the middle of an attachment is hung up on after
// the probe's wait, as one that stops before its answer.
func TestCutAttachmentDoesNotHang(t *testing.T) {
	p := rawSocket(t, func(nc net.Conn) {
		in := bufio.NewReader(nc)
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			if strings.Contains(line, `"id":`) && !strings.Contains(line, MethodPing) {
				nc.Write([]byte(framedAttachment(`{"jsonrpc":"2.0","id":1,"result":{"content":""}}`, "abc", 100)))
			}
		}
	})
	ctx := context.Background()
	c, err := Dial(ctx, p, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	_, err = c.CallUnprobed(ctx, "m", nil)
	if na := new(NoAnswerError); !errors.As(err, &na) || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %v, want no answer within the probe's wait", time.Since(start), err)
	}
}

// rawSocket serves each connection with serve.
func rawSocket(t testing.TB, serve func(net.Conn)) string {
	t.Helper()
	p := t.TempDir() + "/1-0.sock"
	ln, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer nc.Close(); serve(nc) }()
		}
	}()
	return p
}

// FuzzCallerRead: whatever a server sends, attachments or not, a caller
// reads messages or an error and never panics, nor holds more than the
// bytes it read.
func FuzzCallerRead(f *testing.F) {
	ok := `{"jsonrpc":"2.0","id":1,"result":{"content":""}}`
	f.Add([]byte(framedAttachment(ok, "abc", 3)))
	f.Add([]byte(framedAttachment(ok, "abc", 3) + framedAttachment(ok, "abc", 3)))
	f.Add([]byte("Attachment-Length: 2\r\nContent-Length: 2\r\n\r\n{}ab"))
	f.Add([]byte(framedAttachment(`{"jsonrpc":"2.0","method":"m"}`, "é", 2)))
	f.Fuzz(func(t *testing.T, wire []byte) {
		st := newStream(struct {
			io.Reader
			io.Writer
			io.Closer
		}{strings.NewReader(string(wire)), io.Discard, io.NopCloser(nil)}, 1<<16)
		st.takes = true
		cs := callerStream{st, &inbox{waiting: 2}}
		total := 0
		for range len(wire) + 1 {
			_, n, err := cs.Read(context.Background())
			if err != nil {
				return
			}
			total += int(n)
			if total > len(wire) {
				t.Fatalf("%d bytes read of %d sent", total, len(wire))
			}
		}
		t.Fatal("more messages than bytes")
	})
}
