package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
)

// checked is a daemon of root with only what its per-call checks need.
func checked(t testing.TB, root string) *daemon {
	t.Helper()
	id, err := folderID(root)
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{root: root, userConfig: filepath.Join(t.TempDir(), "config.json"), log: zap.NewNop(), rootID: id, moved: make(chan struct{})}
	d.cfgKey = d.configKey()
	return d
}

// A configuration file's key changes with its bytes, whatever its stat
// says, and with its identity; not when nothing changed.
func TestConfigKeyIsTheBytes(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, config.FileName)
	if err := os.WriteFile(p, []byte(`{"policy": {"deny": ["aa/**"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d := checked(t, root)
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if k := d.configKey(); !k[0].same(d.cfgKey[0]) || !k[1].same(d.cfgKey[1]) {
		t.Fatal("the key changed with nothing changed")
	}
	// The same size, its time put back (cp -p).
	if err := os.WriteFile(p, []byte(`{"policy": {"deny": ["bb/**"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	k := d.configKey()
	if k[0].same(d.cfgKey[0]) {
		t.Fatal("other bytes of the same size and time: the same key")
	}
	// Another file of the same bytes in its place.
	if err := os.WriteFile(p+".new", []byte(`{"policy": {"deny": ["bb/**"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	if d.configKey()[0].same(k[0]) {
		t.Fatal("another file in its place: the same key")
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if gone := d.configKey(); gone[0].same(k[0]) || !gone[0].same(d.configKey()[0]) {
		t.Fatal("a removed file: the same key as the file, or not its own")
	}
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

// BenchmarkCallChecks is what every call through the daemon adds for its
// root and its configuration: a stat of the root, and each configuration
// file opened, read and hashed.
func BenchmarkCallChecks(b *testing.B) {
	root := b.TempDir()
	cfg := []byte(`{"guard": "enforce", "readBudget": 24000, "policy": {"deny": ["secrets/**", "*.pem"], "sensitive": [".env*"]}}`)
	if err := os.WriteFile(filepath.Join(root, config.FileName), cfg, 0o644); err != nil {
		b.Fatal(err)
	}
	d := checked(b, root)
	if err := os.WriteFile(d.userConfig, cfg, 0o644); err != nil {
		b.Fatal(err)
	}
	d.cfgKey = d.configKey()
	b.ReportAllocs()
	for b.Loop() {
		if !d.sameRoot() {
			b.Fatal("moved")
		}
		d.reloadConfig() // unchanged: never reaches the engines
	}
}

// A daemon whose root is gone as it starts ends as a daemon whose folder
// is removed does: the mark of its start is removed, so the next command
// starts one of the folder then there.
func TestDaemonOfAGoneRootLeavesNoMark(t *testing.T) {
	state := t.TempDir()
	sockDir, err := bridge.Dir(state)
	if err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(sockDir, startedFile)
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err = Run(context.Background(), Options{Root: filepath.Join(t.TempDir(), "gone"), StateDir: state})
	if err == nil {
		t.Fatal("a daemon of a root that is not there ran")
	}
	if _, err := os.Lstat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the mark of its start: %v, want removed", err)
	}
}
