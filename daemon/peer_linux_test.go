//go:build linux

package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/workspace"
)

// The test binary, run with one of these set, is a daemon of that root (its
// socket printed on stdout) or a raw peer of that socket (it writes what
// envPeerSend holds, then copies to stdout what comes back until the daemon
// hangs up or envPeerWait passes): processes of their own, which the kernel
// tells apart as it would a sandboxed agent's.
const (
	envDaemonRoot  = "SIGHTLINE_TEST_DAEMON_ROOT"
	envDaemonState = "SIGHTLINE_TEST_DAEMON_STATE"
	envDaemonStall = "SIGHTLINE_TEST_DAEMON_STALL"
	envPeerSocket  = "SIGHTLINE_TEST_PEER_SOCKET"
	envPeerSend    = "SIGHTLINE_TEST_PEER_SEND"
	envPeerWait    = "SIGHTLINE_TEST_PEER_WAIT"
)

// ownConfinement, in what a peer sends, is replaced by its own
// confinement. Messages that end with frameEnd are framed with headers by
// the peer (after that replacement); other wire is sent as it is.
const (
	ownConfinement = "@@CONFINEMENT@@"
	frameEnd       = "\x1e" // an ASCII record separator, which no message here holds
)

func init() {
	if root := os.Getenv(envDaemonRoot); root != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		stall, _ := time.ParseDuration(os.Getenv(envDaemonStall))
		err := Run(ctx, Options{Root: root, StateDir: os.Getenv(envDaemonState), Stall: stall, Ready: func(s string) { fmt.Println("socket", s) }})
		if err != nil {
			fmt.Fprintln(os.Stderr, "daemon:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if sock := os.Getenv(envPeerSocket); sock != "" {
		wait, _ := time.ParseDuration(os.Getenv(envPeerWait))
		if wait <= 0 {
			wait = 5 * time.Second
		}
		nc, err := net.Dial("unix", sock)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dial:", err)
			os.Exit(2)
		}
		// Headers are framed here, so that a hello may name the peer's own
		// confinement (ownConfinement).
		send := os.Getenv(envPeerSend)
		if strings.Contains(send, frameEnd) {
			var wire strings.Builder
			for body := range strings.SplitSeq(strings.ReplaceAll(send, ownConfinement, Confinement()), frameEnd) {
				if body != "" {
					fmt.Fprintf(&wire, "Content-Length: %d\r\n\r\n%s", len(body), body)
				}
			}
			send = wire.String()
		}
		if _, err := nc.Write([]byte(send)); err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
		}
		_ = nc.SetReadDeadline(time.Now().Add(wait))
		_, err = io.Copy(os.Stdout, nc)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			fmt.Println("\nPEER: still open")
		} else {
			fmt.Println("\nPEER: closed")
		}
		os.Exit(0)
	}
}

// testDaemon is a daemon process of a fresh workspace.
type testDaemon struct {
	root, state, sock string
	cmd               *exec.Cmd
}

// startDaemon runs the test binary as a daemon of a fresh workspace holding
// files, with the extra environment env.
func startDaemon(t *testing.T, files map[string]string, env ...string) *testDaemon {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Its own configuration and state homes: the user's daemon slots are
	// not the test's to take.
	cfg := t.TempDir()
	common := []string{"XDG_CONFIG_HOME=" + cfg, "XDG_STATE_HOME=" + t.TempDir()}
	t.Setenv("XDG_CONFIG_HOME", cfg)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	state := t.TempDir()
	cmd.Env = append(append(append(os.Environ(), common...), envDaemonRoot+"="+root, envDaemonState+"="+state), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &testDaemon{root: root, state: state, cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "socket "); ok {
				line <- s
			}
		}
	}()
	select {
	case d.sock = <-line:
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon did not listen")
	}
	return d
}

// hello is what a legitimate caller of this build in the test's own process
// says.
func (d *testDaemon) hello() bridge.HelloParams {
	return bridge.HelloParams{Build: Build(), Root: d.root, Config: config.UserFile(), Confinement: Confinement()}
}

// message is a JSON-RPC message framed with headers.
func message(id int, method string, params any) string {
	b := body(id, method, params)
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)
}

// body is a JSON-RPC message (a notification when id is 0).
func body(id int, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id > 0 {
		m["id"] = id
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// writeParams create name in the workspace holding text.
func (d *testDaemon) writeParams(name, text string) engine.WriteParams {
	return engine.WriteParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(d.root, name)))}, Mode: "create", Content: &text}
}

// peer runs the test binary as a raw peer of the daemon that sends wire,
// with attr (nil: none), and returns what it got back.
func (d *testDaemon) peer(t *testing.T, wire string, attr *syscall.SysProcAttr) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envPeerSocket+"="+d.sock, envPeerSend+"="+wire, envPeerWait+"=3s")
	cmd.SysProcAttr = attr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%w: %s", err, ee.Stderr)
	}
	return string(out), err
}

// A caller that never says hello is served nothing: an operation sent
// first is answered with an error, the connection is closed, and nothing
// is written.
func TestDaemonServesNothingBeforeTheHello(t *testing.T) {
	d := startDaemon(t, map[string]string{"f.txt": "a\n"})
	write := message(1, ops.Write.Method(), d.writeParams("x.txt", "pwned\n"))
	_, line, _ := strings.Cut(write, "\r\n\r\n")
	for i, wire := range []string{
		write,
		// Line-framed, as callers of earlier builds wrote.
		line + "\n",
		// A hello that names nothing is not served either.
		message(0, bridge.MethodHello, struct{}{}) + write,
	} {
		out, err := d.peer(t, wire, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d.root, "x.txt")); err == nil {
			t.Fatalf("case %d: a caller with no hello had a file written:\n%s", i, out)
		}
		if !strings.Contains(out, `"error"`) || strings.Contains(out, `"result"`) {
			t.Fatalf("case %d: answered\n%s\nwant an error answer and no result", i, out)
		}
		if i < 2 && !strings.HasSuffix(strings.TrimSpace(out), "PEER: closed") {
			t.Fatalf("case %d: the connection stayed open:\n%s", i, out)
		}
	}
	// A read before the hello is refused as well.
	out, err := d.peer(t, message(1, ops.Read.Method(), engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(d.root, "f.txt")))}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, `"result"`) || strings.Contains(out, "|a") {
		t.Fatalf("a read before the hello was answered:\n%s", out)
	}
	// The pings and hellos of a legitimate caller are answered, and its
	// calls served.
	out, err = d.peer(t, message(1, bridge.MethodPing, nil)+message(2, bridge.MethodHello, d.hello())+message(3, ops.Write.Method(), d.writeParams("y.txt", "ok\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"serves":true`) || !strings.Contains(out, `"id":3,"result"`) {
		t.Fatalf("a caller that said hello was not served:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(d.root, "y.txt")); err != nil || string(b) != "ok\n" {
		t.Fatalf("y.txt: %q %v", b, err)
	}
}

// otherNetwork is a child process's attributes that put it in a network
// namespace of its own (and, when this process may not make one alone, a
// user namespace that maps this process's user to itself), or why the
// kernel forbids it here.
func otherNetwork() (*syscall.SysProcAttr, string) {
	try := func(a *syscall.SysProcAttr) error {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = a
		return cmd.Run()
	}
	a := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if try(a) == nil {
		return a, ""
	}
	a = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
	}
	if err := try(a); err != nil {
		return nil, fmt.Sprintf("this kernel lets no child of this process into a network namespace of its own: %v", err)
	}
	return a, ""
}

// A caller in another network namespace is refused, even when its hello
// names the daemon's own confinement: the daemon reads the caller's from the
// kernel, and nothing it sent is carried out.
func TestDaemonRefusesAnotherNamespaceWhateverItsHelloSays(t *testing.T) {
	attr, why := otherNetwork()
	if attr == nil {
		t.Skip(why)
	}
	d := startDaemon(t, map[string]string{"f.txt": "a\n"})
	lie := d.hello() // this process's confinement, which is the daemon's
	for i, wire := range []string{
		message(1, bridge.MethodHello, lie) + message(2, ops.Write.Method(), d.writeParams("x.txt", "pwned\n")),
		message(0, bridge.MethodHello, lie) + message(2, ops.Write.Method(), d.writeParams("x.txt", "pwned\n")),
		message(2, ops.Write.Method(), d.writeParams("x.txt", "pwned\n")),
	} {
		out, err := d.peer(t, wire, attr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d.root, "x.txt")); err == nil {
			t.Fatalf("case %d: a caller of another network namespace had a file written:\n%s", i, out)
		}
		if strings.Contains(out, `"serves":true`) || strings.Contains(out, `"id":2,"result"`) {
			t.Fatalf("case %d: a caller of another network namespace was served:\n%s", i, out)
		}
		if !strings.HasSuffix(strings.TrimSpace(out), "PEER: closed") {
			t.Fatalf("case %d: the connection of a caller whose hello lied stayed open:\n%s", i, out)
		}
	}
	// One that tells the truth is told it is not served, and may still ask
	// the daemon to exit (then it runs its calls in its own process and
	// starts a daemon of its confinement).
	truth := lie
	truth.Confinement = ownConfinement
	out, err := d.peer(t, body(1, bridge.MethodHello, truth)+frameEnd+body(2, bridge.MethodExit, nil)+frameEnd, attr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"serves":false`) || !strings.Contains(out, `another confinement`) {
		t.Fatalf("a caller of another confinement: \n%s\nwant not served, for its confinement", out)
	}
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon asked to exit did not")
	}
}

// vmRSS is a process's resident memory, in bytes.
func vmRSS(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// Peers that announce the largest message and send none of it (nor more
// than a few bytes) cost the daemon the bytes they sent, not the length
// they announced; one that stalls mid-message is hung up on; and the daemon
// still serves a caller meanwhile.
func TestDaemonMemoryIsWhatPeersSend(t *testing.T) {
	d := startDaemon(t, map[string]string{"f.txt": "a\nb\nc\n"}, envDaemonStall+"=2s")
	pid := d.cmd.Process.Pid
	ctx := context.Background()
	serve := func() {
		t.Helper()
		c, err := bridge.Dial(ctx, d.sock, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Call(ctx, bridge.MethodHello, d.hello()); err != nil {
			t.Fatal(err)
		}
		a, err := c.Call(ctx, ops.Read.Method(), engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(d.root, "f.txt")))}})
		if err != nil || !strings.Contains(a.Attachment+string(a.Result), "|b") {
			t.Fatalf("a caller was not served: %v %s", err, a.Result)
		}
	}
	serve()
	before := vmRSS(t, pid, "VmRSS")
	huge := fmt.Sprintf("Content-Length: %d\r\n\r\n{\"jsonrpc\"", bridge.MaxMessage-1)
	hangup := func(held []net.Conn) {
		for _, nc := range held {
			_ = nc.Close()
		}
	}
	// Rounds of peers that hang up: the memory the daemon freed is then
	// reused, and cleared, for the next round's messages.
	var held []net.Conn
	for round := range 4 {
		for range 3 {
			nc, err := net.Dial("unix", d.sock)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := nc.Write([]byte(huge)); err != nil {
				t.Fatal(err)
			}
			held = append(held, nc)
		}
		time.Sleep(300 * time.Millisecond)
		if round < 3 {
			hangup(held)
			held = nil
			time.Sleep(300 * time.Millisecond)
		}
	}
	serve()
	after, peak := vmRSS(t, pid, "VmRSS"), vmRSS(t, pid, "VmHWM")
	t.Logf("daemon's resident memory: %d MB before, %d MB after, peak %d MB", before>>20, after>>20, peak>>20)
	if after-before > 64<<20 || peak-before > 64<<20 {
		t.Fatalf("peers that sent a few bytes each made the daemon's resident memory grow from %d MB to %d MB (peak %d MB)", before>>20, after>>20, peak>>20)
	}
	// The peers still connected stalled mid-message: they are hung up on.
	for _, nc := range held {
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 512)
		for {
			_, err := nc.Read(buf)
			if err == nil {
				continue
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("a peer stalled mid-message was not hung up on")
			}
			break
		}
	}
	hangup(held)
	serve()
}

// A caller that keeps its router (sightline mcp) says hello again on each
// new connection to the same daemon: after the daemon stopped answering
// for a while (a probe given up on, the connection closed), the next call
// is served, not refused for a hello the daemon never got on it.
func TestRouterSaysHelloOnEachConnection(t *testing.T) {
	d := startDaemon(t, map[string]string{"f.txt": "a\nb\nc\n"})
	hello := d.hello()
	r := route.New(route.Options{Root: d.root, StateDir: d.state, Daemon: &hello, Wait: 300 * time.Millisecond,
		OpenLocal: func(context.Context) (*engine.Env, error) {
			return nil, errors.New("not on disk: the daemon serves this test")
		}})
	ctx := context.Background()
	read := func() error {
		p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(d.root, "f.txt")))}}
		_, err := route.Do(ctx, r, ops.Read, p)
		return err
	}
	if err := read(); err != nil {
		t.Fatal(err)
	}
	pid := d.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	_ = read() // the daemon does not answer: the router hangs up on it
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := read(); err != nil {
		t.Fatalf("the daemon, answering again, on a new connection: %v (notices %q)", err, r.Notices())
	}
}

// TestProgressReachesTheCaller: a long call the daemon runs tells its
// caller's progress how far it has come, through the connection, and ends
// at the whole of the work.
func TestProgressReachesTheCaller(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%d.txt", i)] = fmt.Sprintf("file %d\n", i)
	}
	d := startDaemon(t, files)
	hello := d.hello()
	r := route.New(route.Options{Root: d.root, StateDir: d.state, Daemon: &hello,
		OpenLocal: func(context.Context) (*engine.Env, error) {
			return nil, errors.New("not on disk: the daemon serves this test")
		}})
	var last [2]int
	calls := 0
	ctx := engine.WithProgress(context.Background(), func(done, total int) { last, calls = [2]int{done, total}, calls+1 })
	res, err := route.Do(ctx, r, ops.Files, engine.FilesParams{Hash: true})
	if err != nil || len(res.Files) != 30 || res.Files[0].FileHash == "" {
		t.Fatalf("%+v %v", res, err)
	}
	if calls == 0 || last != [2]int{30, 30} {
		t.Fatalf("progress told %d times, last %v; want it to end at 30 of 30", calls, last)
	}
}
