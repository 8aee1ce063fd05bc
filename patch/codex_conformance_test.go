package patch

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/internal/testarchive"
)

const codexConf = "../testdata/conformance/codex"

// codexApply carries a patch out on a tree of files as Codex's apply_patch
// does, through ParseCodex and PlaceCodex: file after file, a failure
// leaving the files written before it.
func codexApply(tree map[string]string, text string) {
	files, err := ParseCodex(text)
	if err != nil {
		return
	}
	for _, f := range files {
		switch f.Kind {
		case Add:
			var b strings.Builder
			for _, h := range f.Hunks {
				for _, l := range h.New {
					b.WriteString(l + "\n")
				}
			}
			tree[f.Path] = b.String()
		case Delete:
			if _, ok := tree[f.Path]; !ok {
				return
			}
			delete(tree, f.Path)
		default:
			text, ok := tree[f.Path]
			if !ok {
				return
			}
			lines := CodexLines(text, false)
			rs, fail := PlaceCodex(lines, f.Hunks)
			if fail != nil {
				return
			}
			out := applyCodex(lines, rs)
			if f.NewPath != "" {
				delete(tree, f.Path)
				tree[f.NewPath] = out
			} else {
				tree[f.Path] = out
			}
		}
	}
}

// TestCodexConformance: Codex's own apply_patch scenarios and unit cases
// (vendored in testdata/conformance/codex, with their license), carried
// out through ParseCodex and PlaceCodex, leave the files Codex leaves.
func TestCodexConformance(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(codexConf, "scenarios", "*"))
	if len(dirs) == 0 {
		t.Fatal("no scenarios")
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		if name == "012_delete_directory_fails" {
			continue // a folder, which this tree of files does not model
		}
		patch, err := os.ReadFile(filepath.Join(d, "patch.txt"))
		if err != nil {
			t.Fatal(err)
		}
		tree := readCodexTree(t, filepath.Join(d, "input"))
		codexApply(tree, string(patch))
		if want := readCodexTree(t, filepath.Join(d, "expected")); !sameFiles(tree, want) {
			t.Errorf("%s: %q, Codex leaves %q", name, tree, want)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(codexConf, "unit", "*.txtar"))
	n := 0
	for _, p := range paths {
		meta, files, err := testarchive.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if meta["kind"] != "patch" {
			continue
		}
		tree, want := map[string]string{}, map[string]string{}
		for n, text := range files {
			if rest, ok := strings.CutPrefix(n, "input/"); ok {
				tree[rest] = text
			}
			if rest, ok := strings.CutPrefix(n, "expected/"); ok {
				want[rest] = text
			}
		}
		codexApply(tree, files["output"])
		if !sameFiles(tree, want) {
			t.Errorf("%s: %q, Codex leaves %q", filepath.Base(p), tree, want)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("%d unit cases", n)
	}
}

func readCodexTree(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
