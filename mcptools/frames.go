package mcptools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/sightline-lsp/sightline/engine"
)

// MaxLine bounds one line (one JSON-RPC message) of the stdio transport:
// content of the largest write accepted (engine.MaxWriteSize) fits
// however it is escaped (at most six bytes a byte, \u0000), with room for
// the rest of the call.
const MaxLine = 6*engine.MaxWriteSize + 1<<20

// JSON-RPC error codes of messages that are not requests.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// Filter stands between a client's stream and the SDK's transport, which
// ends the whole session at the first line it cannot decode. It reads r line
// by line and passes on, through the returned reader, only the lines the
// SDK decodes as one JSON-RPC message; every other line (not JSON, too
// deep, not an object, no "jsonrpc":"2.0", a batch, longer than maxLine) is
// answered here with a JSON-RPC error on w, and the session goes on.
// Batches are refused: MCP dropped them (2025-06-18) and a client of
// sightline sends one message a line.
//
// The returned writer is w, serialized with those answers: the transport
// must write through it, one message a Write.
func Filter(r io.Reader, w io.Writer, maxLine int) (io.ReadCloser, io.WriteCloser) {
	lw := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filterLines(bufio.NewReaderSize(r, 64<<10), pw, lw, maxLine))
	}()
	return pr, lw
}

// filterLines copies the good lines of r to good and answers the others on
// bad, until r ends (nil) or a write fails. A line over maxLine is never
// held whole: its rest is read past.
func filterLines(r *bufio.Reader, good io.Writer, bad io.Writer, maxLine int) error {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
			return err
		}
		more := errors.Is(err, bufio.ErrBufferFull)
		if len(line)+len(bytes.TrimRight(chunk, "\r\n")) > maxLine {
			if more {
				if err := skipLine(r); err != nil && !errors.Is(err, io.EOF) {
					return err
				}
			}
			if err := answerError(bad, nil, codeInvalidRequest, fmt.Sprintf("Invalid request: a message over %d bytes (the largest write's content, escaped, fits); the line was skipped", maxLine)); err != nil {
				return err
			}
			line = line[:0]
			continue
		}
		line = append(line, chunk...)
		if more {
			continue
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if werr := pass(msg, good, bad); werr != nil {
				return werr
			}
		}
		line = line[:0]
		if err != nil {
			return nil // end of input
		}
	}
}

// pass sends msg on when the SDK will take it, else answers it. A good
// message is decoded once here; the checks that name what is wrong run only
// for a bad one.
func pass(msg []byte, good, bad io.Writer) error {
	if msg[0] == '{' {
		if _, err := jsonrpc.DecodeMessage(msg); err == nil {
			_, err := good.Write(append(msg, '\n'))
			return err
		} else if json.Valid(msg) {
			return answerError(bad, idOf(msg), codeInvalidRequest, fmt.Sprintf("Invalid request: %v", err))
		}
	}
	if !json.Valid(msg) {
		// Not JSON at all, or nested deeper than a decoder goes.
		return answerError(bad, nil, codeParseError, "Parse error: the line is not valid JSON (or is nested too deeply); send one JSON-RPC 2.0 message a line")
	}
	what := "a JSON value that is not an object"
	if msg[0] == '[' {
		what = "a batch (an array), which this server does not take"
	}
	return answerError(bad, nil, codeInvalidRequest, "Invalid request: "+what+"; send one JSON-RPC 2.0 message object a line")
}

// idOf is the id of an invalid message when it is a valid one (a number or
// a string), so the client can match the error to its call; else null.
func idOf(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// skipLine reads past the rest of an overlong line without keeping it.
func skipLine(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

func answerError(w io.Writer, id json.RawMessage, code int, message string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// lockedWriter serializes whole messages (one Write each) from the
// transport and from the filter's answers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
