package bridge

import (
	"context"
	"strconv"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// A listener tells its handler the confinement of the process that
// connected, read from the kernel: here, this process's own.
func TestPeerConfinementIsTheKernels(t *testing.T) {
	l, err := Listen(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go l.Serve(context.Background(), func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			c, err := PeerConfinement(ctx)
			if err != nil {
				return nil, err
			}
			return c, nil
		}, func() {}
	})
	ctx := context.Background()
	c, err := Dial(ctx, l.Path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := c.Call(ctx, "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Quote(Confinement()); string(a.Result) != want {
		t.Fatalf("the peer's confinement %s, want this process's %s", a.Result, want)
	}
}
