package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"

	"github.com/sightline-lsp/sightline/internal/swaptest"
)

// TestFilesSwapRace: while a folder is swapped for a link to a folder
// outside the workspace (renameat2 RENAME_EXCHANGE), no listing shows a
// file of the outside folder: folders are listed through descriptors
// reached without following links.
func TestFilesSwapRace(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"d/inside.txt": "in\n", "main.go": "package main\n"})
	writeTree(t, outside, map[string]string{"outside-secret-name.txt": "x\n"})
	os.Symlink(outside, filepath.Join(root, "dlink"))
	ws := workspace.New([]string{root}, workspace.Options{})
	ReleaseRoots(t, ws)
	env := NewEnv(ws, ledger.New(ledger.Options{}), config.Default(), nil)
	stop := swaptest.Start(t, root, "d", "dlink")
	tries, escapes := 0, 0
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline) && tries < 5000; tries++ {
		res, err := env.Files(context.Background(), FilesParams{})
		if err != nil {
			continue
		}
		for _, f := range res.Files {
			if strings.Contains(f.Path, "outside-secret-name") {
				if escapes++; escapes <= 3 {
					t.Errorf("listed %s", f.Path)
				}
			}
		}
	}
	swaps := stop()
	t.Logf("%d listings, %d escapes (%d swaps)", tries, escapes, swaps)
}
