package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/internal/hugepage"
)

// MaxMessage bounds one message on the bridge: the answer to a whole read
// of the largest document sightline loads (64 MiB, its lines' refs and
// JSON escaping) fits, while a garbage or hostile length cannot make either
// end allocate gigabytes.
const MaxMessage = 512 << 20

// ErrTooLarge is a message over MaxMessage (or the stream's own bound).
var ErrTooLarge = errors.New("bridge: message too large")

// stream frames the bridge's JSON-RPC messages. It reads both framings, a
// message per line (what every caller and server wrote before) and
// Content-Length headers, and writes lines until it knows the peer reads
// headers: the peer sent methodFrames or a message framed with headers.
// A message framed with headers is read into one allocation of its length;
// a line has no length ahead of it and is read into a buffer that doubles.
//
// A success answer framed with headers may carry an attachment, a text
// written after its body (Attachment-Length), which a server sends only to
// a caller that asked for them in methodFrames: the text of a whole read
// then costs neither end its JSON escaping. The attachment is read into the
// body's allocation.
//
// Every frame it returns is a fresh allocation that nothing else holds or
// reuses, so what is decoded from it may keep it (ownedCodec).
//
// A server's side trusts no length it is sent: anyone who reaches the
// socket can announce the largest message and send nothing. Its frames
// grow as their bytes arrive (at most twice what arrived), the growth
// drawn from the listener's budget for all its connections, and a peer
// that stops sending in the middle of a message is hung up on after stall.
// A caller's side reads the answers of its own user's server into one
// allocation of their length (in huge pages for a caller of one call).
type stream struct {
	conn  io.ReadWriteCloser
	in    *bufio.Reader
	max   int
	huge  bool // a large frame in huge pages (CallerOptions.OneCall)
	takes bool // reads attachments: a caller's side, which asks for them

	// A server's side: the memory its connections' messages may take as
	// they are read (nil: a caller's side), the deadline of a message under
	// way (nil: none), and who connected.
	budget *budget
	stall  *stallReader
	peer   *peer

	headers atomic.Bool // write Content-Length frames
	attach  atomic.Bool // the peer reads attachments (set with headers)

	wmu  sync.Mutex // one message written at a time, each whole
	wbuf []byte     // reused for small messages; under wmu

	omu       sync.Mutex
	outbox    map[string]string // attachments to write, by the head of their answer (answerHead)
	hangAfter string            // the head of the answer after which the connection is closed (HangUp)
}

// budget is the memory a listener's connections may take, all together,
// for the messages they are reading beyond each one's first buffer: peers
// that announce large messages and send them slowly, or not at all, cannot
// make a server hold more than this.
type budget struct{ left atomic.Int64 }

func newBudget(n int) *budget {
	b := &budget{}
	b.left.Store(int64(n))
	return b
}

// take reserves n bytes; false when fewer are left.
func (b *budget) take(n int) bool {
	if b.left.Add(-int64(n)) < 0 {
		b.left.Add(int64(n))
		return false
	}
	return true
}

func (b *budget) give(n int) { b.left.Add(int64(n)) }

// DefaultStall is how long a server waits for the next bytes of a message
// under way: a caller writes each message whole, at once.
const DefaultStall = 10 * time.Second

// firstRead is the first buffer of a message a server reads; it grows as
// the message's bytes arrive.
const firstRead = 64 << 10

// stallReader reads a server's connection with a deadline while a message
// is under way (armed): none between messages, when a caller may keep a
// connection open as long as it likes.
type stallReader struct {
	nc    net.Conn
	wait  time.Duration
	armed bool // a message is under way
	set   bool // a deadline is set on nc
}

func (r *stallReader) Read(p []byte) (int, error) {
	if r.armed {
		_ = r.nc.SetReadDeadline(time.Now().Add(r.wait))
		r.set = true
	}
	n, err := r.nc.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("bridge: the peer sent nothing for %v in the middle of a message: %w", r.wait, err)
	}
	return n, err
}

// done ends a message: no deadline until the next one starts.
func (r *stallReader) done() {
	r.armed = false
	if r.set {
		_ = r.nc.SetReadDeadline(time.Time{})
		r.set = false
	}
}

// readBuffer is the read side's buffer: a small message (the most) is
// read with few system calls, a large one goes around it into its own.
const readBuffer = 64 << 10

// keepWrite is the largest write buffer kept between messages: a
// connection that once sent a large answer does not hold its size.
const keepWrite = 1 << 20

func newStream(conn io.ReadWriteCloser, max int) *stream {
	if max <= 0 || max > MaxMessage {
		max = MaxMessage
	}
	return &stream{conn: conn, in: bufio.NewReaderSize(conn, readBuffer), max: max}
}

// newServerStream is a server's side of a connection from p: its messages'
// memory drawn from b, a message under way cut off after stall without a
// byte (0: DefaultStall).
func newServerStream(nc net.Conn, max int, b *budget, stall time.Duration, p *peer) *stream {
	if stall <= 0 {
		stall = DefaultStall
	}
	s := newStream(nc, max)
	s.stall = &stallReader{nc: nc, wait: stall}
	s.in = bufio.NewReaderSize(s.stall, readBuffer)
	s.budget, s.peer = b, p
	return s
}

// Read implements jsonrpc2.Stream (a server's side: no attachments).
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(frame)
	if err != nil {
		return nil, 0, err
	}
	return msg, n, nil
}

// ReadFrame returns the next message's JSON (jsonrpc2 reads frames through
// it when a stream has it: batches, and results decoded without a copy).
// It is a server's side: a caller that reads attachments sends no batch,
// whose answers could not carry them, so one ends its connection.
func (s *stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	frame, _, n, err := s.read(ctx)
	if err != nil {
		return nil, 0, err
	}
	if s.attach.Load() && batch(frame) {
		return nil, 0, errors.New("bridge: a batch from a caller that reads attachments")
	}
	return frame, n, nil
}

// read returns the next message's JSON and its attachment (nil if none).
func (s *stream) read(ctx context.Context) (frame, attachment []byte, n int64, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, err
	}
	first, err := s.in.Peek(1)
	if err != nil {
		if err == io.EOF && len(first) == 0 {
			return nil, nil, 0, io.EOF
		}
		return nil, nil, 0, fmt.Errorf("bridge: read: %w", err)
	}
	if s.stall != nil {
		s.stall.armed = true
		defer s.stall.done()
	}
	if c := first[0]; c == 'C' || c == 'c' || c == 'A' || c == 'a' {
		return s.readHeaders()
	}
	frame, n, err = s.readLine()
	return frame, nil, n, err
}

// readHeaders reads a message framed with headers: a Content-Length, an
// Attachment-Length when this end reads attachments, other fields ignored,
// a blank line, the body and the attachment, into one allocation.
func (s *stream) readHeaders() (body, attachment []byte, n int64, err error) {
	length, attach, consumed := -1, 0, 0
	for {
		line, err := s.in.ReadSlice('\n')
		consumed += len(line)
		if err != nil {
			if err == bufio.ErrBufferFull {
				return nil, nil, 0, fmt.Errorf("%w: a header line longer than %d bytes", jsonrpc2.ErrInvalidHeader, readBuffer)
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, 0, fmt.Errorf("bridge: read a message's headers: %w", err)
		}
		line = trimEOL(line)
		if len(line) == 0 {
			break
		}
		name, value, ok := cutHeader(line)
		if !ok {
			return nil, nil, 0, fmt.Errorf("%w: header line %q has no colon", jsonrpc2.ErrInvalidHeader, clip(line))
		}
		switch {
		case asciiEqualFold(name, "content-length"):
			if length, err = s.length("Content-Length", value); err != nil {
				return nil, nil, 0, err
			}
		case asciiEqualFold(name, "attachment-length"):
			if !s.takes {
				return nil, nil, 0, fmt.Errorf("%w: an Attachment-Length, which this end did not ask for", jsonrpc2.ErrInvalidHeader)
			}
			if attach, err = s.length("Attachment-Length", value); err != nil {
				return nil, nil, 0, err
			}
		}
	}
	if length < 0 {
		return nil, nil, 0, fmt.Errorf("%w: no Content-Length", jsonrpc2.ErrInvalidHeader)
	}
	if length+attach > s.max {
		return nil, nil, 0, fmt.Errorf("%w: a message of %d bytes with an attachment of %d is over the limit of %d bytes", ErrTooLarge, length, attach, s.max)
	}
	// The peer writes headers, so it reads them.
	s.headers.Store(true)
	buf, err := s.readBody(length + attach)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("bridge: read a message of %d bytes and its attachment of %d: %w", length, attach, err)
	}
	if attach > 0 {
		attachment = buf[length:]
	}
	return buf[:length:length], attachment, int64(consumed + length + attach), nil
}

// readBody reads the n bytes of a message framed with headers: on a
// caller's side into one allocation of n, on a server's side into a buffer
// that grows as they arrive, within the listener's budget.
func (s *stream) readBody(n int) ([]byte, error) {
	if s.budget == nil {
		buf := hugepage.Bytes(n, s.huge)[:n]
		if _, err := io.ReadFull(s.in, buf); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		return buf, nil
	}
	first := n
	for first > firstRead {
		first = (first + 1) / 2
	}
	buf := make([]byte, 0, first)
	taken := 0
	defer func() { s.budget.give(taken) }()
	for len(buf) < n {
		if len(buf) == cap(buf) {
			c := grown(cap(buf), n)
			if !s.budget.take(c - cap(buf)) {
				return nil, fmt.Errorf("%w: the server's memory for messages being read is taken (%d bytes of this one read)", ErrTooLarge, len(buf))
			}
			taken += c - cap(buf)
			next := make([]byte, len(buf), c)
			copy(next, buf)
			buf = next
		}
		m, err := s.in.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err != nil && len(buf) < n {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return buf, nil
}

// grown is the capacity after c of a buffer on its way to n: about twice
// c, the halvings of n, so that the last is n itself (the buffers of a
// message allocate about twice its length in all).
func grown(c, n int) int {
	x := n
	for (x+1)/2 > c {
		x = (x + 1) / 2
	}
	return x
}

// length reads a header's length: a positive number within the limit.
func (s *stream) length(header string, value []byte) (int, error) {
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%w: %s %q is not a positive number", jsonrpc2.ErrInvalidHeader, header, clip(value))
	}
	if n > int64(s.max) {
		return 0, fmt.Errorf("%w: %s %d is over the limit of %d bytes", ErrTooLarge, header, n, s.max)
	}
	return int(n), nil
}

// batch reports whether a frame is a JSON array.
func batch(frame []byte) bool {
	for _, c := range frame {
		if !space(c) {
			return c == '['
		}
	}
	return false
}

// readLine reads a message written as one line.
func (s *stream) readLine() ([]byte, int64, error) {
	line, err := s.in.ReadSlice('\n')
	if err == nil {
		if len(line) > s.max+1 {
			return nil, 0, fmt.Errorf("%w: a line over the limit of %d bytes", ErrTooLarge, s.max)
		}
		return append([]byte(nil), line[:len(line)-1]...), int64(len(line)), nil
	}
	if err != bufio.ErrBufferFull {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, fmt.Errorf("bridge: read a message: %w", err)
	}
	buf := make([]byte, 0, 4*len(line))
	buf = append(buf, line...)
	taken := 0
	if s.budget != nil {
		defer func() { s.budget.give(taken) }()
	}
	for {
		line, err = s.in.ReadSlice('\n')
		if len(buf)+len(line) > s.max+1 {
			return nil, 0, fmt.Errorf("%w: a line over the limit of %d bytes", ErrTooLarge, s.max)
		}
		if len(buf)+len(line) > cap(buf) {
			c := min(2*cap(buf)+len(line), s.max+1)
			if s.budget != nil {
				if !s.budget.take(c - cap(buf)) {
					return nil, 0, fmt.Errorf("%w: the server's memory for messages being read is taken (%d bytes of this line read)", ErrTooLarge, len(buf))
				}
				taken += c - cap(buf)
			}
			grown := make([]byte, len(buf), c)
			copy(grown, buf)
			buf = grown
		}
		buf = append(buf, line...)
		switch err {
		case nil:
			return buf[:len(buf)-1], int64(len(buf)), nil
		case bufio.ErrBufferFull:
		case io.EOF:
			return nil, 0, fmt.Errorf("bridge: read a message: %w", io.ErrUnexpectedEOF)
		default:
			return nil, 0, fmt.Errorf("bridge: read a message: %w", err)
		}
	}
}

// Write implements jsonrpc2.Stream: the message is encoded once and
// written whole, its header (if any) beside it in the same system call.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	body := jsonrpc2.AppendMessage(s.wbuf[:0], msg)
	att, last := s.attachmentOf(body)
	n, err := s.writeLocked(body, att)
	s.keep(body)
	if last {
		_ = s.conn.Close()
	}
	return n, err
}

// WriteFrame writes a message already encoded (a batch's answers).
func (s *stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(data, "")
}

// writeLocked writes a message and its attachment ("" for none: only an
// answer queued for a peer that reads attachments has one, and that peer
// reads headers too).
func (s *stream) writeLocked(body []byte, attachment string) (int64, error) {
	var head, tail []byte
	if s.headers.Load() {
		head = append(append([]byte("Content-Length: "), strconv.Itoa(len(body))...), "\r\n"...)
		if attachment != "" {
			head = append(append(append(head, "Attachment-Length: "...), strconv.Itoa(len(attachment))...), "\r\n"...)
		}
		head = append(head, "\r\n"...)
	} else {
		tail = []byte{'\n'}
	}
	// The attachment is written from where it lies: a write only reads it.
	bufs := net.Buffers{head, body, unsafe.Slice(unsafe.StringData(attachment), len(attachment)), tail}
	n, err := bufs.WriteTo(s.conn)
	return n, err
}

// queue keeps text to write as the attachment of the answer to call id.
func (s *stream) queue(id jsonrpc2.ID, text string) {
	s.omu.Lock()
	defer s.omu.Unlock()
	if s.outbox == nil {
		s.outbox = map[string]string{}
	}
	s.outbox[answerHead(id)] = text
}

// attachmentOf takes the attachment queued for the answer body is: a
// success answer carries it; an error answer to the call drops it. last:
// the connection is hung up on after it (HangUp).
func (s *stream) attachmentOf(body []byte) (text string, last bool) {
	s.omu.Lock()
	defer s.omu.Unlock()
	last = s.hangAfter != "" && bytes.HasPrefix(body, []byte(s.hangAfter))
	for head, text := range s.outbox {
		if rest, ok := bytes.CutPrefix(body, []byte(head)); ok {
			delete(s.outbox, head)
			if bytes.HasPrefix(rest, []byte(`"result":`)) {
				return text, last
			}
			return "", last
		}
	}
	return "", last
}

// hangUpAfter closes the connection once the answer to call id is written.
func (s *stream) hangUpAfter(id jsonrpc2.ID) {
	s.omu.Lock()
	defer s.omu.Unlock()
	s.hangAfter = answerHead(id)
}

// answerHead is how jsonrpc2 begins its answers to call id, up to the
// member that says whether it is a result or an error.
func answerHead(id jsonrpc2.ID) string {
	const end = `"result":0}`
	b := jsonrpc2.AppendResponse(nil, id, jsonrpc2.RawMessage("0"), nil)
	return string(b[:len(b)-len(end)])
}

func (s *stream) keep(body []byte) {
	if cap(body) <= keepWrite {
		s.wbuf = body[:0]
	} else {
		s.wbuf = nil
	}
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error { return s.conn.Close() }

func trimEOL(b []byte) []byte {
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// cutHeader splits "Name: value", the value's spaces trimmed.
func cutHeader(line []byte) (name, value []byte, ok bool) {
	for i, c := range line {
		if c == ':' {
			value = line[i+1:]
			for len(value) > 0 && (value[0] == ' ' || value[0] == '\t') {
				value = value[1:]
			}
			for len(value) > 0 && (value[len(value)-1] == ' ' || value[len(value)-1] == '\t') {
				value = value[:len(value)-1]
			}
			return line[:i], value, true
		}
	}
	return nil, nil, false
}

// asciiEqualFold compares name with want, which is lower case ASCII.
func asciiEqualFold(name []byte, want string) bool {
	if len(name) != len(want) {
		return false
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// clip keeps an error's quote of the peer's bytes short.
func clip(b []byte) string {
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

// callerStream is a caller's side of a connection: the stream without
// ReadFrame, so that jsonrpc2 takes each message from Read, which hands a
// success answer's result on as it lies in its frame, and its attachment
// to the call's inbox. jsonrpc2's reading of frames scans an answer over
// 64 KB twice and copies its result.
type callerStream struct {
	s  *stream
	in *inbox
}

func (c callerStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, att, n, err := c.s.read(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, id, ok := answer(frame)
	if !ok {
		if att != nil {
			return nil, 0, fmt.Errorf("bridge: an attachment of %d bytes to a message that is not a success answer: %q", len(att), clip(frame))
		}
		if msg, err = jsonrpc2.DecodeMessage(frame); err != nil {
			return nil, 0, err
		}
		r, isAnswer := msg.(*jsonrpc2.Response)
		if !isAnswer {
			return msg, n, nil
		}
		if id, ok = r.ID().Number(); !ok {
			return msg, n, nil
		}
	}
	// The attachment's bytes are the frame's, which nothing else holds or
	// writes (see stream): the string is them, not a copy.
	if err := c.in.put(id, unsafe.String(unsafe.SliceData(att), len(att))); err != nil {
		return nil, 0, err
	}
	return msg, n, nil
}

func (c callerStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return c.s.Write(ctx, msg)
}

func (c callerStream) Close() error { return c.s.Close() }

// answer reads a success answer as jsonrpc2 writes one,
// {"jsonrpc":"2.0","id":<integer>,"result":<JSON>}, its result left in
// the frame (one scan, to check it is JSON). Any other message is left to
// jsonrpc2.DecodeMessage.
func answer(frame []byte) (jsonrpc2.Message, int64, bool) {
	rest, ok := bytes.CutPrefix(frame, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok {
		return nil, 0, false
	}
	i := 0
	for i < len(rest) && i < 19 && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i == 0 || (rest[0] == '0' && i > 1) {
		return nil, 0, false
	}
	id, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	if err != nil {
		return nil, 0, false
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"result":`))
	if !ok || len(rest) < 2 || rest[len(rest)-1] != '}' {
		return nil, 0, false
	}
	result := rest[:len(rest)-1]
	if space(result[0]) || space(result[len(result)-1]) {
		return nil, 0, false // not as jsonrpc2 writes it; its decoder trims it
	}
	if !jsontext.Value(result).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return nil, 0, false
	}
	return jsonrpc2.NewResponse(jsonrpc2.NewNumberID(id), result, nil), id, true
}

// inbox holds the attachments read with answers until their calls take
// them, and no more than one for each call under way: an attachment to a
// call that ended without its answer (cancelled) is dropped when it comes,
// one to no call under way ends the connection.
type inbox struct {
	mu      sync.Mutex
	waiting int // calls under way
	got     map[int64]string
	gone    map[int64]bool // calls that ended without their answer
}

// begin counts a call under way.
func (b *inbox) begin() {
	b.mu.Lock()
	b.waiting++
	b.mu.Unlock()
}

// put keeps the attachment of the answer to call id, told of every answer
// ("": none), which settles a call that ended without it.
func (b *inbox) put(id int64, text string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gone[id] {
		delete(b.gone, id)
		return nil
	}
	if text == "" {
		return nil
	}
	if _, dup := b.got[id]; dup || len(b.got) >= b.waiting {
		return fmt.Errorf("bridge: an attachment to call %d, which is not under way", id)
	}
	if b.got == nil {
		b.got = map[int64]string{}
	}
	b.got[id] = text
	return nil
}

// end takes call id's attachment as the call ends, answered or not: one
// not answered drops it, now or when it comes.
func (b *inbox) end(id jsonrpc2.ID, answered bool) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waiting--
	n, ok := id.Number()
	if !ok {
		return "" // never sent
	}
	text, had := b.got[n]
	delete(b.got, n)
	if answered {
		return text
	}
	if !had {
		if b.gone == nil {
			b.gone = map[int64]bool{}
		}
		b.gone[n] = true
	}
	return ""
}

func space(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// ownedCodec is jsonrpc2's codec but for a raw result, which it keeps
// instead of copying: the frames of a stream are the caller's alone (see
// stream), so a large answer is not copied once more on its way.
type ownedCodec struct{}

func (ownedCodec) Marshal(v any) ([]byte, error) {
	b, err := jsonrpc2.DefaultCodec.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrUnsent, err)
	}
	return b, nil
}

func (ownedCodec) Unmarshal(data []byte, v any) error {
	switch p := v.(type) {
	case *json.RawMessage:
		*p = data
		return nil
	case *jsonrpc2.RawMessage:
		*p = data
		return nil
	}
	return jsonrpc2.DefaultCodec.Unmarshal(data, v)
}
