package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// lspCodec marshals payloads with the protocol package's union-aware JSON
// (the package keeps its own codec unexported; this is the same contract).
type lspCodec struct{}

// Codec returns the LSP codec, for clients built on jsonrpc2 (tests, tools).
func Codec() jsonrpc2.Codec { return lspCodec{} }

func (lspCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

func (lspCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// rwc joins a reader and a writer (stdin, stdout) into the stream's
// ReadWriteCloser; Close closes both ends.
type rwc struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (c rwc) Close() error {
	var errs []error
	for _, cl := range c.closers {
		errs = append(errs, cl.Close())
	}
	return errors.Join(errs...)
}

// NewStream frames LSP messages (Content-Length headers) over r and w.
func NewStream(r io.Reader, w io.Writer, closers ...io.Closer) jsonrpc2.Stream {
	inner := jsonrpc2.NewHeaderStream(rwc{Reader: r, Writer: w, closers: closers})
	return &guardStream{Stream: inner, frames: inner.(frameStream), in: bufio.NewReader(r)}
}

// maxFrame bounds one incoming message: a 64 MiB document (the largest
// sightline loads) fits with room for JSON escaping, while a garbage or
// hostile Content-Length cannot make the server allocate gigabytes.
const maxFrame = 512 << 20

// readFrame reads one Content-Length framed body. jsonrpc2's own reader
// reports every header fault as "invalid message header" and allocates
// whatever length it is told; this one names the fault and caps the size, so
// the log says why the connection ended.
func readFrame(in *bufio.Reader) ([]byte, int64, error) {
	length, consumed, have := 0, 0, false
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			if err == io.EOF && (consumed > 0 || line != "") {
				err = io.ErrUnexpectedEOF
			}
			if err == io.EOF {
				return nil, 0, err
			}
			return nil, 0, fmt.Errorf("read LSP header: %w", err)
		}
		consumed += len(line)
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, 0, fmt.Errorf("%w: header line %q has no colon", jsonrpc2.ErrInvalidHeader, clip(line))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v := strings.TrimSpace(value)
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return nil, 0, fmt.Errorf("%w: Content-Length %q is not a positive number", jsonrpc2.ErrInvalidHeader, clip(v))
			}
			if n > maxFrame {
				return nil, 0, fmt.Errorf("%w: Content-Length %d is over the %d-byte limit", jsonrpc2.ErrInvalidHeader, n, maxFrame)
			}
			length, have = int(n), true
		}
	}
	if !have {
		return nil, 0, fmt.Errorf("%w: no Content-Length", jsonrpc2.ErrInvalidHeader)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, fmt.Errorf("read LSP body of %d bytes: %w", length, err)
	}
	return body, int64(consumed + length), nil
}

// clip keeps a log line short and printable.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// frameStream is the frame-level interface jsonrpc2's own framers implement
// (it is unexported there; Go interfaces match by shape).
type frameStream interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
	WriteFrame(ctx context.Context, data []byte) (int64, error)
}

// guardStream answers frames that are not JSON-RPC messages (invalid JSON, a
// JSON value that is not a request) with a JSON-RPC error and reads on:
// jsonrpc2 v1.0.1 would end the connection on the first such frame.
type guardStream struct {
	jsonrpc2.Stream
	frames frameStream
	in     *bufio.Reader // the read side: frames are read here, written through frames
}

func (g *guardStream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		frame, n, err := readFrame(g.in)
		if err != nil {
			return frame, n, err
		}
		if i := firstNonSpace(frame); i < len(frame) && frame[i] == '[' {
			return frame, n, nil // batches are validated member by member downstream
		}
		if _, derr := jsonrpc2.DecodeMessage(frame); derr == nil {
			return frame, n, nil
		} else if werr := g.reject(ctx, frame, derr); werr != nil {
			return nil, 0, werr
		}
	}
}

func (g *guardStream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	return g.frames.WriteFrame(ctx, data)
}

// reject writes the error response for a frame that is not a message: -32700
// for invalid JSON, -32600 for anything else, with the frame's id if it has one.
func (g *guardStream) reject(ctx context.Context, frame []byte, cause error) error {
	code, msg := jsonrpc2.ParseError, "Parse error: the message is not valid JSON"
	id := json.RawMessage("null")
	if json.Valid(frame) {
		code, msg = jsonrpc2.InvalidRequest, "Invalid request: "+cause.Error()
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(frame, &probe) == nil && len(probe.ID) > 0 {
			id = probe.ID
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_, err := g.frames.WriteFrame(context.WithoutCancel(ctx), body)
	return err
}

func firstNonSpace(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// handler builds the chain NOTES-go-lsp.md prescribes, innermost first:
// typed protocol dispatch; the lifecycle gate and sightline/* router (raw
// params, absent or null allowed); release of calls with Async so they run
// concurrently while notifications stay inline and in wire order;
// cancellation; and outermost, panic recovery and the rule that a
// notification never returns an error (an error would close the connection).
func (s *Server) handler() jsonrpc2.Handler {
	typed := protocol.ServerHandler(s, nil)
	routed := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		return s.route(ctx, req, typed)
	}
	async := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		return routed(ctx, req)
	}
	cancel := protocol.CancelHandler(async)
	return func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		s.busy.Store(time.Now().UnixNano())
		method := strings.Clone(req.Method())
		isCall := req.IsCall()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in handler", zap.String("method", method), zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				res = nil
				err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r)
			}
			if !isCall && err != nil {
				s.log.Warn("notification failed", zap.String("method", method), zap.Error(err))
				res, err = nil, nil
			}
		}()
		res, err = cancel(ctx, req)
		if err != nil && isCall {
			err = rpcError(method, err)
		}
		return res, err
	}
}

// rpcError gives every error a proper JSON-RPC code: a plain Go error would go
// out with code 0.
func rpcError(method string, err error) error {
	var re *jsonrpc2.Error
	if errors.As(err, &re) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return protocol.ErrRequestCancelled
	}
	return jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", method, err)
}
