package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sightline-lsp/sightline/internal/hugepage"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
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
// Every frame it returns is a fresh allocation that nothing else holds or
// reuses, so what is decoded from it may keep it (ownedCodec).
type stream struct {
	conn io.ReadWriteCloser
	in   *bufio.Reader
	max  int
	huge bool // a large frame in huge pages (CallerOptions.OneCall)

	headers atomic.Bool // write Content-Length frames

	wmu  sync.Mutex // one message written at a time, each whole
	wbuf []byte     // reused for small messages; under wmu
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

// Read implements jsonrpc2.Stream.
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
func (s *stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	first, err := s.in.Peek(1)
	if err != nil {
		if err == io.EOF && len(first) == 0 {
			return nil, 0, io.EOF
		}
		return nil, 0, fmt.Errorf("bridge: read: %w", err)
	}
	if c := first[0]; c == 'C' || c == 'c' {
		return s.readHeaders()
	}
	return s.readLine()
}

// readHeaders reads a message framed with headers: a Content-Length, other
// fields ignored, a blank line, the body.
func (s *stream) readHeaders() ([]byte, int64, error) {
	length, consumed := -1, 0
	for {
		line, err := s.in.ReadSlice('\n')
		consumed += len(line)
		if err != nil {
			if err == bufio.ErrBufferFull {
				return nil, 0, fmt.Errorf("%w: a header line longer than %d bytes", jsonrpc2.ErrInvalidHeader, readBuffer)
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, fmt.Errorf("bridge: read a message's headers: %w", err)
		}
		line = trimEOL(line)
		if len(line) == 0 {
			break
		}
		name, value, ok := cutHeader(line)
		if !ok {
			return nil, 0, fmt.Errorf("%w: header line %q has no colon", jsonrpc2.ErrInvalidHeader, clip(line))
		}
		if !asciiEqualFold(name, "content-length") {
			continue
		}
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n <= 0 {
			return nil, 0, fmt.Errorf("%w: Content-Length %q is not a positive number", jsonrpc2.ErrInvalidHeader, clip(value))
		}
		if n > int64(s.max) {
			return nil, 0, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes", ErrTooLarge, n, s.max)
		}
		length = int(n)
	}
	if length < 0 {
		return nil, 0, fmt.Errorf("%w: no Content-Length", jsonrpc2.ErrInvalidHeader)
	}
	// The peer writes headers, so it reads them.
	s.headers.Store(true)
	body := hugepage.Bytes(length, s.huge)[:length]
	if _, err := io.ReadFull(s.in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, fmt.Errorf("bridge: read a message of %d bytes: %w", length, err)
	}
	return body, int64(consumed + length), nil
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
	for {
		line, err = s.in.ReadSlice('\n')
		if len(buf)+len(line) > s.max+1 {
			return nil, 0, fmt.Errorf("%w: a line over the limit of %d bytes", ErrTooLarge, s.max)
		}
		if len(buf)+len(line) > cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf)+len(line), s.max+1))
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
	n, err := s.writeLocked(body)
	s.keep(body)
	return n, err
}

// WriteFrame writes a message already encoded (a batch's answers).
func (s *stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(data)
}

func (s *stream) writeLocked(body []byte) (int64, error) {
	var head, tail []byte
	if s.headers.Load() {
		head = append(append([]byte("Content-Length: "), strconv.Itoa(len(body))...), "\r\n\r\n"...)
	} else {
		tail = []byte{'\n'}
	}
	bufs := net.Buffers{head, body, tail}
	n, err := bufs.WriteTo(s.conn)
	return n, err
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
// success answer's result on as it lies in its frame. jsonrpc2's reading of
// frames scans an answer over 64 KB twice and copies its result.
type callerStream struct{ s *stream }

func (c callerStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	frame, n, err := c.s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	if msg, ok := answer(frame); ok {
		return msg, n, nil
	}
	msg, err := jsonrpc2.DecodeMessage(frame)
	if err != nil {
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
func answer(frame []byte) (jsonrpc2.Message, bool) {
	rest, ok := bytes.CutPrefix(frame, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok {
		return nil, false
	}
	i := 0
	for i < len(rest) && i < 19 && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i == 0 || (rest[0] == '0' && i > 1) {
		return nil, false
	}
	id, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	if err != nil {
		return nil, false
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"result":`))
	if !ok || len(rest) < 2 || rest[len(rest)-1] != '}' {
		return nil, false
	}
	result := rest[:len(rest)-1]
	if space(result[0]) || space(result[len(result)-1]) {
		return nil, false // not as jsonrpc2 writes it; its decoder trims it
	}
	if !jsontext.Value(result).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return nil, false
	}
	return jsonrpc2.NewResponse(jsonrpc2.NewNumberID(id), result, nil), true
}

func space(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// ownedCodec is jsonrpc2's codec but for a raw result, which it keeps
// instead of copying: the frames of a stream are the caller's alone (see
// stream), so a large answer is not copied once more on its way.
type ownedCodec struct{}

func (ownedCodec) Marshal(v any) ([]byte, error) { return jsonrpc2.DefaultCodec.Marshal(v) }

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
