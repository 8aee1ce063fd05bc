package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Listener is one server's socket. Only the user's own processes are
// served (the kernel's credentials of the peer, checked as it connects);
// what each may send is bounded (see stream): its messages' memory grows
// as their bytes arrive, within a budget for all the connections
// together, and a message under way is cut off after Stall without a
// byte.
type Listener struct {
	Path string
	// Stall bounds the wait for the next bytes of a message under way (0:
	// DefaultStall); set before Serve.
	Stall time.Duration
	ln    *net.UnixListener
	// mem is the memory all connections' messages may take as they are
	// read, beyond each one's first buffer.
	mem *budget

	mu     sync.Mutex
	conns  map[jsonrpc2.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Listen opens a socket in dir named after this process: <pid>-<n>.sock,
// n the first number not held by a live server (several servers of one
// workspace may run in one process, as in tests). A socket file of that name
// that nobody listens on is a killed server's and is replaced; other dead
// sockets in dir are removed too.
func Listen(dir string) (*Listener, error) {
	for n := range 100 {
		p := filepath.Join(dir, fmt.Sprintf("%d-%d.sock", os.Getpid(), n))
		if _, err := os.Lstat(p); err == nil {
			if err := probe(p); !refused(err) {
				continue // alive, or not ours to judge
			}
			if err := os.Remove(p); err != nil {
				return nil, fmt.Errorf("bridge: remove stale socket: %w", err)
			}
		}
		l, err := listenAt(dir, p)
		if errors.Is(err, os.ErrExist) || isAddrInUse(err) {
			continue
		}
		return l, err
	}
	return nil, fmt.Errorf("bridge: no free socket name in %s", dir)
}

// ListenDaemon opens the socket of the workspace's daemon in dir,
// <pid>-daemon.sock. The caller holds the daemon's lock (package daemon),
// so no other daemon listens in dir; sockets nobody listens on are removed.
func ListenDaemon(dir string) (*Listener, error) {
	p := filepath.Join(dir, fmt.Sprintf("%d%s", os.Getpid(), daemonSuffix))
	if _, err := os.Lstat(p); err == nil {
		if err := os.Remove(p); err != nil {
			return nil, fmt.Errorf("bridge: remove stale socket: %w", err)
		}
	}
	return listenAt(dir, p)
}

// listenAt listens on the socket p in dir, only its owner let in, and
// removes the sockets of dir nobody listens on. An error of the listen
// itself is returned as it is (a name already taken: isAddrInUse).
func listenAt(dir, p string) (*Listener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("bridge: listen on %s: %w", p, err)
	}
	ln.SetUnlinkOnClose(true)
	if err := restrictSocket(p); err != nil {
		_ = ln.Close()
		return nil, err
	}
	RemoveStale(dir)
	return &Listener{Path: p, ln: ln, mem: newBudget(MaxMessage), conns: map[jsonrpc2.Conn]struct{}{}}, nil
}

func isAddrInUse(err error) bool {
	var se *os.SyscallError
	return errors.As(err, &se) && se.Syscall == "bind"
}

// Handler serves one connection; done is called when the connection ends,
// to release what the handler kept for it.
type Handler func() (h jsonrpc2.Handler, done func())

// peerKey is the context key of the connection a request came on;
// streamKey, of its stream.
type (
	peerKey   struct{}
	streamKey struct{}
)

// Peer is the connection a request served by Serve came on, to call the
// caller back (MethodApprove); nil outside a request.
func Peer(ctx context.Context) jsonrpc2.Conn {
	c, _ := ctx.Value(peerKey{}).(jsonrpc2.Conn)
	return c
}

// Serve accepts connections until Close, serving each with a fresh handler.
func (l *Listener) Serve(ctx context.Context, newHandler Handler) {
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			return // closed
		}
		p, err := peerOf(nc)
		if err != nil || !p.sameUser() {
			// Another user (root) or no credentials at all: the socket's
			// permissions let only the user in, and its server acts as the
			// user.
			p.close()
			_ = nc.Close()
			continue
		}
		h, done := newHandler()
		st := newServerStream(nc, MaxMessage, l.mem, l.Stall, p)
		conn := jsonrpc2.NewConn(st)
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			_ = nc.Close()
			p.close()
			done()
			return
		}
		l.conns[conn] = struct{}{}
		l.wg.Add(1)
		l.mu.Unlock()
		cctx := context.WithValue(context.WithValue(ctx, peerKey{}, conn), streamKey{}, st)
		conn.Go(cctx, l.open(framed(st, h)))
		go func() {
			defer l.wg.Done()
			<-conn.Done()
			p.close()
			done()
			l.mu.Lock()
			delete(l.conns, conn)
			l.mu.Unlock()
		}()
	}
}

// open serves h's calls while the listener is open: a call that arrives
// after Close is refused at once (as by a server shutting down: the caller
// runs it elsewhere), although the connection it came on ends behind Close.
func (l *Listener) open(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		l.mu.Lock()
		closed := l.closed
		l.mu.Unlock()
		if closed && req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the server is closing its socket")
		}
		return h(ctx, req)
	}
}

// framed serves methodFrames itself, ahead of the handler (which sees the
// caller's first message as it did before it): the answers that follow
// are written in Content-Length frames, with attachments if the caller
// reads them. It queues the attachment of an Attached answer.
func framed(st *stream, h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() && req.Method() == methodFrames {
			st.headers.Store(true)
			var p framesParams
			if json.Unmarshal(req.Params(), &p) == nil && p.Attachments {
				st.attach.Store(true)
			}
			return nil, nil
		}
		res, err := h(ctx, req)
		a, ok := res.(Attached)
		switch {
		case !ok || err != nil:
			return res, err
		case a.Attachment == "":
			return jsonrpc2.RawMessage(a.Result), nil
		case !st.attach.Load():
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "bridge: an answer with an attachment to a caller that does not read them")
		}
		st.queue(req.ID(), a.Attachment)
		return jsonrpc2.RawMessage(a.Result), nil
	}
}

// Attached is a handler's answer whose text travels apart from its JSON,
// as an attachment: Result is the JSON, in which the text's member is "",
// and Attachment the text (UTF-8). Only for a caller that reads
// attachments (Attaches); an empty Attachment is none.
type Attached struct {
	Result     []byte
	Attachment string
}

// HangUp ends the connection a request served by Serve came on once the
// answer to it is written (a notification's: at once): a peer refused
// outright is told why, then nothing more of it is read.
func HangUp(ctx context.Context, req *jsonrpc2.Request) {
	st, _ := ctx.Value(streamKey{}).(*stream)
	if st == nil {
		return
	}
	if !req.IsCall() {
		_ = st.conn.Close()
		return
	}
	st.hangUpAfter(req.ID())
}

// PeerConfinement is the confinement (Confinement) of the process that
// opened the connection a request served by Serve came on, read from the
// kernel for that process (Linux; "" elsewhere): what it is, not what its
// messages say.
func PeerConfinement(ctx context.Context) (string, error) {
	st, _ := ctx.Value(streamKey{}).(*stream)
	if st == nil || st.peer == nil {
		return "", errors.New("bridge: no connection of a listener")
	}
	return st.peer.readConfinement()
}

// Attaches reports whether the caller of a request served by Serve reads
// attachments (an Attached answer).
func Attaches(ctx context.Context) bool {
	st, _ := ctx.Value(streamKey{}).(*stream)
	return st != nil && st.attach.Load()
}

// Close stops accepting, removes the socket file and ends every connection.
func (l *Listener) Close() error {
	l.mu.Lock()
	l.closed = true
	conns := make([]jsonrpc2.Conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	err := l.ln.Close()
	for _, c := range conns {
		go c.Close() // Close drains in-flight calls; do not wait on a slow one
	}
	return err
}
