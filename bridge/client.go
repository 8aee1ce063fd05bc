package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Client is a connection to one server's socket.
type Client struct {
	Path string
	// PID is the server's process, from the socket's name (0 if unknown).
	PID  int
	nc   net.Conn
	conn jsonrpc2.Conn
	in   *inbox
	wait time.Duration
	// answered is when the server last answered (Unix nanoseconds): one
	// that answered just now needs no probe before the next call.
	answered atomic.Int64
}

// fresh is how recent an answer makes a probe needless: the probe's own
// answer would be no fresher when the call arrives (both leave the server a
// moment to stop in between), and each round trip costs a wake-up of the
// server, about a millisecond on a busy virtual machine.
const fresh = 5 * time.Millisecond

// dialTimeout bounds connecting to a socket: a live server accepts at once.
const dialTimeout = time.Second

// DefaultWait is how long a server may take to answer a liveness probe. A
// running server answers one in well under a millisecond, whatever else it
// is doing; one that does not is stopped (SIGSTOP, Ctrl-Z) or wedged.
const DefaultWait = 3 * time.Second

// Dial connects to a server's socket. A socket nobody listens on is a
// killed server's: Dial removes it and says so with ErrStale. wait bounds
// each liveness probe of the calls (0: DefaultWait).
func Dial(ctx context.Context, path string, wait time.Duration) (*Client, error) {
	return DialWith(ctx, path, CallerOptions{Wait: wait})
}

// CallerOptions say how a caller's connection behaves.
type CallerOptions struct {
	// Wait bounds each liveness probe of the calls (0: DefaultWait).
	Wait time.Duration
	// Serve answers the server's requests to the caller (a daemon's
	// MethodApprove); nil answers that the method is not found: the bridge
	// sends a caller no other request, any other would be a protocol
	// mistake.
	Serve jsonrpc2.Handler
	// OneCall says the caller lives for one call and never gives memory
	// back (the CLI): a large answer is read into huge pages (package
	// hugepage), which a page fault at a time made a third of its cost.
	OneCall bool
}

// DialWith is Dial with the caller's options.
func DialWith(ctx context.Context, path string, o CallerOptions) (*Client, error) {
	wait, h := o.Wait, o.Serve
	if wait <= 0 {
		wait = DefaultWait
	}
	if h == nil {
		h = jsonrpc2.MethodNotFoundHandler
	}
	pid := pidOf(path)
	nc, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "unix", path)
	if err != nil {
		if refused(err) {
			_ = os.Remove(path)
			return nil, fmt.Errorf("%w: %s", ErrStale, path)
		}
		if ctx.Err() == nil && isTimeout(err) {
			// The socket's queue is full: the server stopped accepting.
			return nil, &NoAnswerError{Path: path, PID: pid, Wait: dialTimeout}
		}
		return nil, fmt.Errorf("bridge: dial %s: %w", path, err)
	}
	st := newStream(nc, MaxMessage)
	st.huge, st.takes = o.OneCall, true
	in := &inbox{}
	conn := jsonrpc2.NewConn(callerStream{st, in}, jsonrpc2.WithCodec(ownedCodec{}))
	conn.Go(context.Background(), h)
	// Ahead of any call, and not awaited: the server may answer in
	// Content-Length frames (one allocation per answer, whatever its size),
	// with attachments. A connection it cannot be written to is found by
	// the first call (ErrGone), as before.
	_ = conn.Notify(ctx, methodFrames, framesParams{Attachments: true})
	return &Client{Path: path, PID: pid, nc: nc, conn: conn, in: in, wait: wait}, nil
}

// pidOf reads the server's pid from a socket name made by Listen.
func pidOf(path string) int {
	s, _, _ := strings.Cut(filepath.Base(path), "-")
	pid, _ := strconv.Atoi(s)
	return pid
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// ErrStale is a socket left behind by a server that is gone.
var ErrStale = errors.New("bridge: stale socket")

// ErrGone is a connection found closed before a call was sent: the server
// never saw the call.
var ErrGone = errors.New("bridge: the language server has gone")

// ErrUnsent is a call whose params JSON cannot carry (text that is not
// UTF-8): it was never sent, and the server is as it was.
var ErrUnsent = errors.New("bridge: the call holds text that is not UTF-8, which a message cannot carry")

// NoAnswerError is a server that accepts connections but does not answer:
// stopped (SIGSTOP, Ctrl-Z) or wedged. The connection is hung up on.
type NoAnswerError struct {
	Path string
	PID  int
	Wait time.Duration
	// Sent: the call had been sent when the server stopped answering, so it
	// may act on it when it resumes. Otherwise it never received the call.
	Sent bool
}

func (e *NoAnswerError) Error() string {
	s := fmt.Sprintf("bridge: the language server (pid %d) did not answer within %v", e.PID, e.Wait)
	if e.Sent {
		s += " after the call was sent"
	}
	return s
}

// Answer is a call's result: its JSON and, when the server sent it apart
// (Attached), the text of the member the JSON gives as "".
type Answer struct {
	Result     json.RawMessage
	Attachment string
}

// Call sends a request and returns its answer. An error is the server's
// answer (*jsonrpc2.Error), ErrGone, *NoAnswerError, or the connection
// failing mid-call (the server may or may not have acted on it).
//
// No call waits on a dead server: a probe first checks that the server
// answers (so a call is never queued to a stopped server, which would act
// on it whenever it resumes), and while the call runs, however long it
// legitimately takes (an editor asking its user), a probe every wait
// checks that the server still answers.
func (c *Client) Call(ctx context.Context, method string, params any) (Answer, error) {
	return c.call(ctx, method, params, true)
}

// CallUnprobed is Call without the probe before it, for a call that changes
// nothing a stopped server could act on later (a read of the daemon, which
// has no editor): a server that stopped is found by the probes while the
// call runs, as for Call. It saves a round trip.
func (c *Client) CallUnprobed(ctx context.Context, method string, params any) (Answer, error) {
	return c.call(ctx, method, params, false)
}

// Notify sends a notification (a daemon's hello) without waiting: a call
// sent after it on the connection reaches the server after it.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if !c.Alive() {
		return ErrGone
	}
	return c.conn.Notify(ctx, method, params)
}

func (c *Client) call(ctx context.Context, method string, params any, probe bool) (Answer, error) {
	if !c.Alive() {
		return Answer{}, ErrGone
	}
	if probe && time.Since(time.Unix(0, c.answered.Load())) > fresh {
		if err := c.probe(ctx); err != nil {
			if errors.As(err, new(*NoAnswerError)) {
				_ = c.nc.Close()
			}
			return Answer{}, err
		}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go c.watch(cctx, cancel)
	var a Answer
	var err error
	if a.Attachment, err = c.roundTrip(cctx, method, params, &a.Result); err != nil {
		var na *NoAnswerError
		if errors.As(context.Cause(cctx), &na) {
			na.Sent = true
			return Answer{}, na
		}
		return Answer{}, err
	}
	c.answered.Store(time.Now().UnixNano())
	return a, nil
}

// roundTrip makes one call on the connection, its result decoded into
// result, and returns its attachment.
func (c *Client) roundTrip(ctx context.Context, method string, params, result any) (string, error) {
	c.in.begin()
	id, err := c.conn.Call(ctx, method, params, result)
	var re *jsonrpc2.Error
	return c.in.end(id, err == nil || errors.As(err, &re)), err
}

// Query sends a request that changes nothing (a daemon's hello) without a
// probe first: a server that does not answer within the probe's wait is
// hung up on, as a probe would. Its answer makes the next call's probe
// needless.
func (c *Client) Query(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if !c.Alive() {
		return nil, ErrGone
	}
	qctx, cancel := context.WithTimeout(ctx, c.wait)
	defer cancel()
	var raw json.RawMessage
	_, err := c.roundTrip(qctx, method, params, &raw)
	var re *jsonrpc2.Error
	switch {
	case err == nil:
		c.answered.Store(time.Now().UnixNano())
		return raw, nil
	case errors.As(err, &re):
		c.answered.Store(time.Now().UnixNano())
		return nil, err
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case qctx.Err() != nil:
		_ = c.nc.Close()
		return nil, &NoAnswerError{Path: c.Path, PID: c.PID, Wait: c.wait}
	}
	return nil, fmt.Errorf("%w: %v", ErrGone, err)
}

// watch probes the server every wait until ctx ends, and cancels the call
// with the probe's error when the server stops answering.
func (c *Client) watch(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(c.wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var na *NoAnswerError
		if err := c.probe(ctx); errors.As(err, &na) {
			cancel(err) // first: the call then reads its cause
			_ = c.nc.Close()
			return
		}
	}
}

// probe asks the server for any answer within wait: an error answer (an
// older server that does not know the method) is an answer too. The caller
// hangs up on a server that gives none.
func (c *Client) probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, c.wait)
	defer cancel()
	_, err := c.roundTrip(pctx, MethodPing, nil, nil)
	var re *jsonrpc2.Error
	switch {
	case err == nil || errors.As(err, &re):
		c.answered.Store(time.Now().UnixNano())
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case pctx.Err() != nil:
		return &NoAnswerError{Path: c.Path, PID: c.PID, Wait: c.wait}
	}
	return fmt.Errorf("%w: %v", ErrGone, err)
}

// Alive reports whether the connection is still up.
func (c *Client) Alive() bool {
	select {
	case <-c.conn.Done():
		return false
	default:
		return true
	}
}

// Close hangs up.
func (c *Client) Close() error {
	_ = c.nc.Close()
	return c.conn.Close()
}
