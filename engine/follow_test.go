package engine_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// The editor's surfaces are told of a change after the workspace's lock is
// released: a surface that reads the document it is told about (as the
// publisher does) must not wait for the change that told it. When the
// workspace called back under its lock, the editor's next change hung.
func TestChangeToldOutsideTheWorkspaceLock(t *testing.T) {
	root := t.TempDir()
	var env *engine.Env
	told := make(chan int64, 16)
	env = engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true,
		OnDocChange: func(k workspace.Key) {
			if env == nil {
				return
			}
			d, _ := env.WS.Known(k) // the publisher reads the document it is told about
			select {
			case told <- d.Rev:
			default:
			}
		}})
	uri := string(workspace.FromPath(filepath.Join(root, "a.go")))
	if _, err := env.WS.Open(uri, "go", 1, "a\nb\n"); err != nil {
		t.Fatal(err)
	}
	env.Settle()
	done := make(chan workspace.Doc, 1)
	go func() {
		d, err := env.WS.Change(uri, 2, []textdoc.Change{{Text: "a\nc\n"}}, textdoc.UTF16, "")
		if err != nil {
			t.Error(err)
		}
		env.Settle()
		done <- d
	}()
	select {
	case d := <-done:
		if rev := <-told; rev != d.Rev {
			t.Fatalf("told of revision %d, the change made %d", rev, d.Rev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the change hangs: the editor's surfaces are told under the workspace's lock")
	}
}
