package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/internal/testarchive"
)

// archive reads a corpus archive's files (testarchive.Read).
func archive(t *testing.T, path string) map[string]string {
	t.Helper()
	_, files, err := testarchive.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestPatchCorpus applies each patch of testdata/patches to its before/
// files (all read first, as the guard wants) through `sightline patch` and
// compares the workspace with after/, byte for byte, files added, deleted
// and renamed included.
func TestPatchCorpus(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/patches/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no corpus")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ar := archive(t, path)
			before, after := map[string]string{}, map[string]string{}
			for name, text := range ar {
				if n, ok := strings.CutPrefix(name, "before/"); ok {
					before[n] = text
				} else if n, ok := strings.CutPrefix(name, "after/"); ok {
					after[n] = text
				}
			}
			c := newCLI(t, before)
			for name := range before {
				if _, errOut, code := c.run("", "read", name); code != 0 {
					t.Fatalf("read %s: %s", name, errOut)
				}
			}
			if out, errOut, code := c.run(ar["patch"], "patch"); code != 0 {
				t.Fatalf("patch: %d\n%s%s", code, out, errOut)
			}
			got := map[string]string{}
			filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(c.dir, p)
				if d.IsDir() {
					if strings.HasPrefix(d.Name(), ".") && rel != "." {
						return filepath.SkipDir
					}
					return nil
				}
				b, _ := os.ReadFile(p)
				got[filepath.ToSlash(rel)] = string(b)
				return nil
			})
			var names []string
			for n := range got {
				names = append(names, n)
			}
			for n := range after {
				if _, ok := got[n]; !ok {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			for _, n := range names {
				if got[n] != after[n] {
					t.Errorf("%s: got %q, want %q", n, got[n], after[n])
				}
			}
		})
	}
}
