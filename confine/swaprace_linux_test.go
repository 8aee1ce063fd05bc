package confine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/internal/swaptest"
)

// TestFolderSwapRaceInProcess races every operation of the root against a
// folder swapped for a link to .git by renameat2(RENAME_EXCHANGE), many
// thousands of times: nothing under .git is ever read, written or created,
// a write that succeeded is in the folder, and one that failed wrote
// nothing. (cmd/sightline's TestFolderSwapRace races the real binary.)
func TestFolderSwapRaceInProcess(t *testing.T) {
	t.Run("openat2", func(t *testing.T) { folderSwapRace(t, false) })
	t.Run("folder by folder", func(t *testing.T) { folderSwapRace(t, true) })
}

func folderSwapRace(t *testing.T, noOpenat2 bool) {
	ws := t.TempDir()
	const gitConfig = "[core]\n# GIT-CONFIG-MARKER\n"
	for name, text := range map[string]string{".git/config": gitConfig, ".git/hooks/keep": "", "e/config": "start\n", "e/hooks/keep": ""} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755)
		os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644)
	}
	os.Symlink(".git", filepath.Join(ws, "elink"))
	r, err := Open(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.base.noOpenat2.Store(noOpenat2) // where the kernel has no openat2
	e, _ := os.Open(filepath.Join(ws, "e"))
	defer e.Close()
	stop := swaptest.Start(t, ws, "e", "elink")
	inE := func(name string) string {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/self/fd/%d/%s", e.Fd(), name))
		return string(b)
	}
	escapes, tries := 0, 0
	escape := func(format string, args ...any) {
		if escapes++; escapes <= 5 {
			t.Errorf(format, args...)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for i := 0; i < 20000 && time.Now().Before(deadline); i++ {
		tries++
		switch i % 4 {
		case 0: // read
			if tg, err := r.Resolve("e/config", Read); err == nil {
				if b, _, err := r.ReadFile(tg, 1<<20); err == nil && bytes.Contains(b, []byte("MARKER")) {
					escape("try %d: read .git/config", i)
				}
			}
		case 1: // overwrite
			text := fmt.Sprintf("write %d\n", i)
			before := inE("config")
			if tg, err := r.Resolve("e/config", Write); err == nil {
				err := replaceText(r, tg, text, nil)
				if got := inE("config"); err == nil && got != text || err != nil && got != before {
					escape("try %d: the replace answered %v; e/config holds %q", i, err, got)
				}
			}
		case 2: // create
			name := fmt.Sprintf("hooks/x%d", i)
			if tg, err := r.Resolve("e/"+name, Write); err == nil {
				err := createText(r, tg, "new\n")
				if got := inE(name); err == nil && got != "new\n" || err != nil && got != "" {
					escape("try %d: the create answered %v; e/%s holds %q", i, err, name, got)
				}
			}
		case 3: // remove
			name := fmt.Sprintf("hooks/x%d", i-1)
			if tg, err := r.Resolve("e/"+name, Write); err == nil && tg.Exists {
				if id, err := r.ID(tg.Rel); err == nil {
					r.RemoveID(tg.Rel, id)
				}
			}
		}
		if b, err := os.ReadFile(filepath.Join(ws, ".git/config")); err != nil || string(b) != gitConfig {
			escape("try %d: .git/config is %q", i, b)
			os.WriteFile(filepath.Join(ws, ".git/config"), []byte(gitConfig), 0o644)
		}
		if ents, _ := os.ReadDir(filepath.Join(ws, ".git/hooks")); len(ents) != 1 {
			escape("try %d: .git/hooks holds %d files", i, len(ents))
			for _, en := range ents {
				if en.Name() != "keep" {
					os.Remove(filepath.Join(ws, ".git/hooks", en.Name()))
				}
			}
		}
		if _, err := os.Stat(filepath.Join(ws, ".git/hooks/keep")); err != nil {
			escape("try %d: .git/hooks/keep was removed", i)
			os.WriteFile(filepath.Join(ws, ".git/hooks/keep"), nil, 0o644)
		}
	}
	swaps := stop()
	t.Logf("%d tries, %d escapes, %d swaps (openat2 used: %v)", tries, escapes, swaps, !r.base.noOpenat2.Load())
	if escapes > 0 {
		t.Errorf("%d escapes in %d tries", escapes, tries)
	}
}
