package bridge

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestDirShortAndPrivate(t *testing.T) {
	state := t.TempDir()
	dir, err := Dir(state)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(state, "bridge") {
		t.Fatalf("Dir = %s, want it in the state folder", dir)
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket folder mode %v, want 0700", fi.Mode().Perm())
	}
}

func TestDirLongStateFolder(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	state := filepath.Join(t.TempDir(), strings.Repeat("x", 60), strings.Repeat("y", 60))
	dir, err := Dir(state)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, filepath.Join(run, "sightline")) || len(dir)+1+longestName > maxSocketPath {
		t.Fatalf("Dir = %s: want a short folder under $XDG_RUNTIME_DIR/sightline", dir)
	}
	again, _ := Dir(state)
	other, _ := Dir(state + "z")
	if again != dir || other == dir {
		t.Fatalf("short folders must be one per state folder: %s %s %s", dir, again, other)
	}
}

func TestListenReplacesStaleSocket(t *testing.T) {
	dir, err := Dir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A killed server leaves its socket file behind: listen and close
	// without unlinking, under the name Listen will want.
	stale := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-0.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	other := filepath.Join(dir, "1-0.sock")
	ln2, _ := net.ListenUnix("unix", &net.UnixAddr{Name: other, Net: "unix"})
	ln2.SetUnlinkOnClose(false)
	ln2.Close()
	if _, err := Dial(context.Background(), stale, 0); err == nil {
		t.Fatal("a dead socket answered")
	}
	// Dial removed it; put it back to see Listen replace it.
	ln, _ = net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	ln.SetUnlinkOnClose(false)
	ln.Close()

	l, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != stale {
		t.Fatalf("Listen took %s, want the stale name %s replaced", l.Path, stale)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Fatalf("another dead socket was left: %v", err)
	}
	fi, _ := os.Stat(l.Path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want 0600", fi.Mode().Perm())
	}
	go l.Serve(context.Background(), func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			return map[string]string{"method": req.Method()}, nil
		}, func() {}
	})
	// A second server in the same process takes the next name.
	l2, err := Listen(dir)
	if err != nil || l2.Path == l.Path {
		t.Fatalf("second Listen: %v %v", l2, err)
	}
	l2.Close()

	c, err := Dial(context.Background(), l.Path, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Call(context.Background(), "sightline/x", nil)
	if raw := a.Result; err != nil || !strings.Contains(string(raw), "sightline/x") {
		t.Fatalf("call: %s %v", raw, err)
	}
	l.Close()
	if _, err := os.Stat(l.Path); !os.IsNotExist(err) {
		t.Fatal("Close left the socket file")
	}
	if _, err := c.Call(context.Background(), "sightline/x", nil); err == nil {
		t.Fatal("a call on a closed server succeeded")
	}
}
