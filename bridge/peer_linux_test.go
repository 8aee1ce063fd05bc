package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"golang.org/x/sys/unix"
)

// envPeer: the test binary run with it set to a socket pings it and prints
// what comes back until the server hangs up (a process of its own, which
// may run as another user).
const envPeer = "SIGHTLINE_TEST_BRIDGE_PEER"

func init() {
	sock := os.Getenv(envPeer)
	if sock == "" {
		return
	}
	nc, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Println("dial:", err)
		os.Exit(0)
	}
	_, _ = nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + MethodPing + `"}` + "\n"))
	_ = nc.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, err = io.Copy(os.Stdout, nc)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		fmt.Println("\nPEER: still open")
	} else {
		fmt.Println("\nPEER: closed")
	}
	os.Exit(0)
}

// A process of another user (root, whom the socket's permissions do not
// stop) is hung up on before anything it sent is read: a server acts as
// its user.
func TestAnotherUserIsHungUpOn(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can start a process of another user here")
	}
	dir, err := os.MkdirTemp("", "bridge-peer")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	served := make(chan string, 4)
	go l.Serve(context.Background(), func() (jsonrpc2.Handler, func()) {
		return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
			served <- req.Method()
			return struct{}{}, nil
		}, func() {}
	})
	// Opened to everyone, as a mistake or another user's root would.
	for _, p := range []string{dir, l.Path} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// A copy of the test binary that the other user may run.
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "peer.test")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envPeer+"="+l.Path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("cannot run the test binary as another user here: %v %s", err, out)
	}
	if strings.Contains(string(out), "dial:") {
		t.Skipf("another user cannot reach the socket here: %s", out)
	}
	if strings.Contains(string(out), `"result"`) || !strings.HasSuffix(strings.TrimSpace(string(out)), "PEER: closed") {
		t.Fatalf("a process of another user got:\n%s\nwant the connection closed, unanswered", out)
	}
	select {
	case m := <-served:
		t.Fatalf("a process of another user was served %s", m)
	default:
	}
}

// A peer's confinement is read for the process that connected, with or
// without a pidfd (Linux before 5.3), and not at all once it is gone.
func TestPeerReadOfAProcess(t *testing.T) {
	self := &peer{uid: os.Getuid(), pid: os.Getpid(), pidfd: -1}
	if c, err := self.readConfinement(); err != nil || c != Confinement() {
		t.Fatalf("without a pidfd: %q %v, want %q", c, err, Confinement())
	}
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		t.Skip("no pidfd here:", err)
	}
	held := &peer{uid: os.Getuid(), pid: os.Getpid(), pidfd: fd}
	defer held.close()
	if c, err := held.readConfinement(); err != nil || c != Confinement() {
		t.Fatalf("with a pidfd: %q %v, want %q", c, err, Confinement())
	}
	cmd := exec.Command("/bin/true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fd, err = unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	gone := &peer{uid: os.Getuid(), pid: cmd.Process.Pid, pidfd: fd}
	defer gone.close()
	_ = cmd.Wait()
	if c, err := gone.readConfinement(); err == nil {
		t.Fatalf("a peer that exited read as %q", c)
	}
	if _, err := (&peer{pid: 0, pidfd: -1}).readConfinement(); err == nil {
		t.Fatal("a peer with no pid here was read")
	}
}

// BenchmarkPeerRead is the daemon's reading of a caller's confinement, once
// per connection (at its hello).
func BenchmarkPeerRead(b *testing.B) {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		b.Skip("no pidfd here:", err)
	}
	defer unix.Close(fd)
	for range b.N {
		p := &peer{uid: os.Getuid(), pid: os.Getpid(), pidfd: fd}
		if _, err := p.read(); err != nil {
			b.Fatal(err)
		}
	}
}
