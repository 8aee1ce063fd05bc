package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
)

// checked is a daemon of root with only what its per-call checks need.
func checked(t testing.TB, root string) *daemon {
	t.Helper()
	id, err := folderID(root)
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{root: root, userConfig: filepath.Join(t.TempDir(), "config.json"), log: zap.NewNop(), rootID: id, moved: make(chan struct{})}
	return d
}

// The root's identity: the same folder passes; the folder moved away and
// another made in its place fails, once and for good (moved is closed).
func TestSameRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	d := checked(t, root)
	if !d.sameRoot() {
		t.Fatal("the same folder is not the same root")
	}
	if err := os.Rename(root, root+".bak"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if d.sameRoot() {
		t.Fatal("a new folder in the root's place is the same root")
	}
	select {
	case <-d.moved:
	case <-time.After(time.Second):
		t.Fatal("the daemon is not told to exit")
	}
	if d.sameRoot() {
		t.Fatal("twice")
	}
}
