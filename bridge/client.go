package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Client is a connection to one server's socket.
type Client struct {
	Path string
	conn jsonrpc2.Conn
}

// dialTimeout bounds connecting to a socket: a live server accepts at once.
const dialTimeout = time.Second

// Dial connects to a server's socket. A socket nobody listens on is a
// killed server's: Dial removes it and says so with ErrStale.
func Dial(ctx context.Context, path string) (*Client, error) {
	nc, err := (&net.Dialer{Timeout: dialTimeout}).DialContext(ctx, "unix", path)
	if err != nil {
		if refused(err) {
			_ = os.Remove(path)
			return nil, fmt.Errorf("%w: %s", ErrStale, path)
		}
		return nil, fmt.Errorf("bridge: dial %s: %w", path, err)
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(nc))
	// The bridge sends the caller no requests: any that came would be a
	// protocol mistake, answered as such.
	conn.Go(context.Background(), jsonrpc2.MethodNotFoundHandler)
	return &Client{Path: path, conn: conn}, nil
}

// ErrStale is a socket left behind by a server that is gone.
var ErrStale = errors.New("bridge: stale socket")

// ErrGone is a connection found closed before a call was sent: the server
// never saw the call.
var ErrGone = errors.New("bridge: the language server has gone")

// Call sends a request and returns its raw result. An error is the server's
// answer (*jsonrpc2.Error), ErrGone, or the connection failing mid-call (the
// server may or may not have acted on it).
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if !c.Alive() {
		return nil, ErrGone
	}
	var raw json.RawMessage
	if _, err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
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
func (c *Client) Close() error { return c.conn.Close() }
