package bridge

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serverPipe is a server's stream over one end of a pipe, its messages'
// memory drawn from b, the other end returned raw.
func serverPipe(t testing.TB, b *budget, stall time.Duration) (*stream, net.Conn) {
	t.Helper()
	a, peer := net.Pipe()
	t.Cleanup(func() { a.Close(); peer.Close() })
	return newServerStream(a, 0, b, stall, nil), peer
}

// A length a peer announces costs a server nothing until its bytes come:
// the frame grows as they arrive, and a peer that stops sending mid-message
// is hung up on after the stall.
func TestServerFrameGrowsAsItsBytesArrive(t *testing.T) {
	b := newBudget(MaxMessage)
	st, peer := serverPipe(t, b, 300*time.Millisecond)
	go peer.Write([]byte("Content-Length: " + strconv.Itoa(MaxMessage-1) + "\r\n\r\n" + strings.Repeat("x", 100<<10)))
	var err error
	start := time.Now()
	n := allocated(func() { _, _, err = st.ReadFrame(context.Background()) })
	if err == nil || !strings.Contains(err.Error(), "sent nothing for") {
		t.Fatalf("a peer that stalled mid-message: %v, want it hung up on", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("hung up on after %v, want about the stall (300ms)", took)
	}
	if n > 4<<20 {
		t.Fatalf("a message announced at %d bytes, of which 100 KB came, cost the server %d bytes", MaxMessage-1, n)
	}
	if left := b.left.Load(); left != MaxMessage {
		t.Fatalf("the budget holds %d bytes once the message ended, want all %d back", left, MaxMessage)
	}
}

// The memory of the messages being read is bounded across connections: a
// message that would take more than what is left of the listener's budget
// ends its connection; the others go on.
func TestServerBudgetBoundsAllConnections(t *testing.T) {
	b := newBudget(1 << 20)
	first, p1 := serverPipe(t, b, 2*time.Second)
	second, p2 := serverPipe(t, b, 2*time.Second)
	sent := make(chan struct{})
	go func() {
		p1.Write([]byte("Content-Length: " + strconv.Itoa(2<<20) + "\r\n\r\n" + strings.Repeat("x", 700<<10)))
		close(sent)
	}()
	errs := make(chan error, 1)
	go func() { _, _, err := first.ReadFrame(context.Background()); errs <- err }()
	<-sent
	go p2.Write([]byte("Content-Length: " + strconv.Itoa(2<<20) + "\r\n\r\n" + strings.Repeat("y", 700<<10)))
	if _, _, err := second.ReadFrame(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a second large message beyond the budget: %v, want ErrTooLarge", err)
	}
	p1.Close()
	if err := <-errs; err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("the first message, cut: %v", err)
	}
	if left := b.left.Load(); left != 1<<20 {
		t.Fatalf("the budget holds %d bytes once the messages ended, want all %d back", left, 1<<20)
	}
}

// An honest message, however large, is read whole on a server's side, in
// either framing.
func TestServerReadsLargeMessagesWhole(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{}}`
	big := `{"jsonrpc":"2.0","id":2,"result":"` + strings.Repeat("y", 3<<20) + `"}`
	wire := "Content-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big + big + "\n" + body + "\n"
	b := newBudget(MaxMessage)
	st, peer := serverPipe(t, b, time.Second)
	go func() {
		peer.Write([]byte(wire))
		peer.Close()
	}()
	for i, want := range []string{big, big, body} {
		f, _, err := st.ReadFrame(context.Background())
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if string(f) != want {
			t.Fatalf("message %d: %.60q (%d bytes), want %.60q (%d)", i, f, len(f), want, len(want))
		}
	}
	if left := b.left.Load(); left != MaxMessage {
		t.Fatalf("the budget holds %d bytes once the messages were read, want all %d back", left, MaxMessage)
	}
}
