package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// deletedHeld lists the files this process holds open that no name leads
// to any more (/proc/self/fd links ending in " (deleted)") under dir.
func deletedHeld(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	var held []string
	for _, fd := range fds {
		to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(to, dir) && strings.HasSuffix(to, " (deleted)") {
			held = append(held, to)
		}
	}
	return held
}

// TestReplacedFileIsFreedBehindTheAnswer: the rename that puts a new text
// in place drops the old file's last name, and the file system frees its
// blocks when its last descriptor closes: inside the rename (about 3 ms
// for 6.6 MB on ext4) unless the write still holds the old file. The write
// holds it from its check to its answer and releases it behind the
// answer, with the history's and the audit's writes; nothing stays open.
func TestReplacedFileIsFreedBehindTheAnswer(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.go")
	if err := os.WriteFile(path, []byte("package a\n\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := SetupTest(t, Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir(), LockDir: t.TempDir()})
	defer env.Close(context.Background())
	uri := string(workspace.FromPath(path))
	ctx := context.Background()
	if res, err := env.Read(ctx, ReadParams{TextDocument: TextDocument{URI: uri}, Range: &ledger.Range{Start: 1, End: 3}}); err != nil || !res.OK {
		t.Fatalf("read: %v %+v", err, res.Outcome)
	}
	// The work behind the answer waits until the answer is checked.
	wait := make(chan struct{})
	env.history.enqueue(func() { <-wait })
	raw, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("3:%s", hashline.Hash("var x = 1")), "new_content": "var x = 2"}})
	res, err := env.Edit(ctx, EditParams{TextDocument: TextDocument{URI: uri}, Edits: raw})
	if err != nil || !res.Applied {
		close(wait)
		t.Fatalf("edit: %v %+v", err, res.Outcome)
	}
	held := deletedHeld(t, root)
	close(wait)
	if len(held) != 1 {
		t.Errorf("when the edit answered, it held %d replaced files (%v), want the one it replaced", len(held), held)
	}
	env.history.drain()
	if now := deletedHeld(t, root); len(now) != 0 {
		t.Errorf("behind the answer, the replaced file is still held: %v", now)
	}
}
