//go:build unix

package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// source is about n bytes of lines with every byte a document may hold
// that JSON escapes (tabs, quotes, backslashes, control characters) and
// non-ASCII text.
func source(n int) string {
	var line strings.Builder
	line.WriteString("\tfunc f() { s := \"a\\tb\\\\\" // é € \u2028 𝄞 ")
	for c := 1; c < 0x20; c++ {
		if c != '\n' && c != '\r' {
			line.WriteByte(byte(c))
		}
	}
	line.WriteString("\x7f}\n")
	return strings.Repeat(line.String(), n/line.Len()+1)
}

// A whole read through the daemon carries its content apart from its JSON
// (an attachment: neither end escapes it) and decodes to the answer of the
// same read in the caller's own process, byte for byte.
func TestWholeReadThroughTheDaemon(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	text := source(3 << 20)
	if err := os.WriteFile(filepath.Join(root, "big.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Root: root, StateDir: t.TempDir(), Ready: func(s string) { ready <- s }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	var sock string
	select {
	case sock = <-ready:
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon did not listen")
	}
	c, err := bridge.Dial(ctx, sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Call(ctx, bridge.MethodHello, bridge.HelloParams{Build: Build(), Root: root, Config: config.UserFile(), Confinement: Confinement()}); err != nil {
		t.Fatal(err)
	}
	p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "big.go")))}}
	p.Budget = &struct {
		Chars int `json:"chars"`
	}{100_000_000}
	a, err := c.Call(ctx, ops.Read.Method(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Attachment) < len(text) || len(a.Result) > 4096 {
		t.Fatalf("a whole read's answer: JSON of %d bytes, attachment of %d, want the content (%d bytes) apart", len(a.Result), len(a.Attachment), len(text))
	}
	got, err := ops.Read.Result(a.Result, a.Attachment)
	if err != nil {
		t.Fatal(err)
	}

	// The same read in its own process, on another state folder (a
	// command's there carries the same notice of a root no marker chose).
	env := engine.Setup(ctx, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir(), Notices: rootNotices(root)})
	defer env.Close(context.WithoutCancel(ctx))
	want, err := ops.Read.Run(ctx, &ops.Call{Env: env, Disk: true}, p)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := result.Marshal(got)
	w, _ := result.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("through the daemon:\n%.300q\nin process:\n%.300q", g, w)
	}
}

// A connection served before its root was moved is refused its next call
// (the identity is checked on every call, not only at the hello), the
// call not run, and the daemon exits; a new connection's hello is told why.
func TestDaemonRefusesACallOnceItsRootMoved(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Root: root, StateDir: t.TempDir(), Idle: time.Hour, Ready: func(s string) { ready <- s }})
	}()
	var sock string
	select {
	case sock = <-ready:
	case err := <-done:
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon did not listen")
	}
	hello := bridge.HelloParams{Build: Build(), Root: root, Config: config.UserFile(), Confinement: Confinement()}
	c, err := bridge.Dial(ctx, sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Call(ctx, bridge.MethodHello, hello); err != nil {
		t.Fatal(err)
	}
	p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "a.txt")))}}
	if _, err := c.Call(ctx, ops.Read.Method(), p); err != nil {
		t.Fatalf("read before the move: %v", err)
	}
	if err := os.Rename(root, root+".bak"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Asked now, the daemon has no tick to wait for: the call tells it.
	_, err = c.Call(ctx, ops.Read.Method(), p)
	var re *jsonrpc2.Error
	if !errors.As(err, &re) || re.Code != bridge.CodeNotServed || !strings.Contains(re.Message, "no longer the folder it opened") {
		t.Fatalf("read after the move: %v, want refused (%d)", err, bridge.CodeNotServed)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon did not exit")
	}
}
