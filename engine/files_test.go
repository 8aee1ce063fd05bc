package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFilesRegistry(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":        "*.log\nbuild/\n!keep.log\n",
		".git/HEAD":         "ref: refs/heads/main\n",
		".git/info/exclude": "local.txt\n",
		"main.go":           "package main\n",
		"main_test.go":      "package main\n",
		"a.log":             "x",
		"keep.log":          "x",
		"local.txt":         "x",
		"build/out.bin":     "x",
		"sub/.gitignore":    "*.tmp\n",
		"sub/x.tmp":         "x",
		"sub/y.go":          "package sub\n",
		"other/x.tmp":       "x",
		"docs/guide.md":     "# guide\n",
		"api/v1.pb.go":      "package api\n",
		".env":              "A=1\n",
		"config/app.yaml":   "a: 1\n",
		"secret/denied.go":  "package secret\n",
	})
	cfg := config.Default()
	cfg.Policy.Deny = []string{"secret/**"}
	ws := workspace.New([]string{root}, workspace.Options{})
	ReleaseRoots(t, ws)
	env := NewEnv(ws, ledger.New(ledger.Options{}), cfg, nil)
	ctx := context.Background()
	defer SetRacyAge(0)() // files written a moment ago have their hashes remembered
	env.Read(ctx, ReadParams{TextDocument: TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "main.go")))}})

	res, err := env.Files(ctx, FilesParams{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileEntry{}
	var order []string
	for _, f := range res.Files {
		got[f.Path] = f
		order = append(order, f.Path)
	}
	want := []string{".env", ".gitignore", "api/v1.pb.go", "config/app.yaml", "docs/guide.md", "keep.log", "main.go", "main_test.go", "other/x.tmp", "sub/.gitignore", "sub/y.go"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("files:\n got %v\nwant %v", order, want)
	}
	for path, tags := range map[string]string{"main.go": "[code]", "main_test.go": "[code test]", "docs/guide.md": "[doc]", "api/v1.pb.go": "[code generated]", "config/app.yaml": "[config]"} {
		if fmt.Sprint(got[path].Tags) != tags {
			t.Errorf("%s: tags %v, want %s", path, got[path].Tags, tags)
		}
	}
	if !got[".env"].Sensitive || got["main.go"].Sensitive {
		t.Error("sensitivity")
	}
	if got["main.go"].State != "fully_read" || got["sub/y.go"].State != "never_read" {
		t.Errorf("states: %s %s", got["main.go"].State, got["sub/y.go"].State)
	}
	if got["main.go"].FileHash != "sha256:"+sha("package main\n") || got["main.go"].Size != 13 {
		t.Errorf("main.go: %+v", got["main.go"])
	}
	// Hashes are remembered by size, times and inode: a changed file is
	// hashed again, an unchanged one not asked for still has its hash.
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main // v2\n"), 0o644)
	os.Chtimes(filepath.Join(root, "main.go"), time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	res, _ = env.Files(ctx, FilesParams{Globs: []string{"*.go"}})
	for _, f := range res.Files {
		if f.Path == "main.go" && f.FileHash != "" {
			t.Errorf("stale hash kept: %+v", f)
		}
		if f.Path == "sub/y.go" && f.FileHash == "" && walkKeyed(t, root) {
			t.Errorf("remembered hash lost: %+v", f)
		}
	}
	if len(res.Files) != 4 {
		t.Errorf("glob *.go: %+v", res.Files)
	}
}

// walkKeyed reports whether the listing's walk gives what a remembered hash
// is keyed by (Linux); elsewhere every hash is computed again.
func walkKeyed(t *testing.T, path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := fileStat("", fi)
	return ok
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestFilesShowsNothingThePolicyHides: the listing shows no file outside
// the workspace through a link, nothing of a denied file through a link to
// it, and no hash of a sensitive file (a hash lets a short secret be
// guessed); a link inside is listed as the file it names.
func TestFilesShowsNothingThePolicyHides(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{
		"main.go":          "package main\n",
		".env":             "A=1\n",
		"secret/denied.go": "package secret // 0123456789\n",
	})
	writeTree(t, outside, map[string]string{"shadow": "root:$6$salt$hash:19000:0:99999:7:::\n"})
	for link, dest := range map[string]string{
		"shadow":       filepath.Join(outside, "shadow"),
		"to-denied.go": "secret/denied.go",
		"env-link":     ".env",
		"main-link.go": "main.go",
	} {
		if err := os.Symlink(dest, filepath.Join(root, link)); err != nil {
			t.Skipf("this system makes no symbolic links for this process (%v)", err)
		}
		if _, err := os.Lstat(filepath.Join(root, link)); err != nil {
			t.Skip("this system answers success to making a symbolic link but makes none (Wine)")
		}
	}
	cfg := config.Default()
	cfg.Policy.Deny = []string{"secret/**"}
	ws := workspace.New([]string{root}, workspace.Options{})
	ReleaseRoots(t, ws)
	env := NewEnv(ws, ledger.New(ledger.Options{}), cfg, nil)
	res, err := env.Files(context.Background(), FilesParams{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileEntry{}
	for _, f := range res.Files {
		got[f.Path] = f
	}
	for _, hidden := range []string{"shadow", "to-denied.go", "secret/denied.go"} {
		if f, ok := got[hidden]; ok {
			t.Errorf("%s is listed: %+v", hidden, f)
		}
	}
	for _, sensitive := range []string{".env", "env-link"} {
		if f := got[sensitive]; !f.Sensitive || f.FileHash != "" {
			t.Errorf("%s: %+v, want sensitive without a hash", sensitive, f)
		}
	}
	if f := got["main-link.go"]; f.FileHash != "sha256:"+sha("package main\n") || f.Size != 13 {
		t.Errorf("main-link.go: %+v", f)
	}
	if len(res.Warnings) == 0 {
		t.Error("no word on the hashes left out")
	}
}

// TestFilesHashSeesAnInPlaceChange: a change that keeps the size, the inode
// and the modification time still shows (the change time moves), and a
// file changed within the clock's resolution is hashed again each time.
func TestFilesHashSeesAnInPlaceChange(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a.txt")
	writeTree(t, root, map[string]string{"a.txt": "aaaa\n"})
	past := time.Now().Add(-time.Hour)
	os.Chtimes(p, past, past)
	ws := workspace.New([]string{root}, workspace.Options{})
	ReleaseRoots(t, ws)
	env := NewEnv(ws, ledger.New(ledger.Options{}), config.Default(), nil)
	hashOf := func() string {
		res, err := env.Files(context.Background(), FilesParams{Hash: true})
		if err != nil || len(res.Files) != 1 {
			t.Fatal(res, err)
		}
		return res.Files[0].FileHash
	}
	for _, racy := range []time.Duration{0, time.Hour} {
		restore := SetRacyAge(racy)
		os.WriteFile(p, []byte("aaaa\n"), 0o644)
		os.Chtimes(p, past, past)
		if h := hashOf(); h != "sha256:"+sha("aaaa\n") {
			t.Fatalf("racy age %v: first hash %s", racy, h)
		}
		f, _ := os.OpenFile(p, os.O_WRONLY, 0)
		f.WriteAt([]byte("bbbb"), 0)
		f.Close()
		os.Chtimes(p, past, past)
		if h := hashOf(); h != "sha256:"+sha("bbbb\n") {
			t.Errorf("racy age %v: after an in-place change the hash is %s (stale)", racy, h)
		}
		restore()
	}
}

// TestFilesHashReportsProgress: a call that hashes tells the caller's
// progress how far it has come, and ends at every file it hashed.
func TestFilesHashReportsProgress(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%d.txt", i%4, i)] = fmt.Sprintf("file %d\n", i)
	}
	writeTree(t, root, files)
	ws := workspace.New([]string{root}, workspace.Options{})
	ReleaseRoots(t, ws)
	env := NewEnv(ws, ledger.New(ledger.Options{}), config.Default(), nil)
	var mu sync.Mutex
	var seen [][2]int
	ctx := WithProgress(context.Background(), func(done, total int) {
		mu.Lock()
		seen = append(seen, [2]int{done, total})
		mu.Unlock()
	})
	res, err := env.Files(ctx, FilesParams{Hash: true})
	if err != nil || len(res.Files) != 40 {
		t.Fatal(len(res.Files), err)
	}
	for _, f := range res.Files {
		if want := "sha256:" + sha(files[f.Path]); f.FileHash != want {
			t.Errorf("%s: %s, want %s", f.Path, f.FileHash, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[len(seen)-1] != [2]int{40, 40} {
		t.Fatalf("progress %v, want it to end at 40 of 40", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i][0] < seen[i-1][0] {
			t.Errorf("progress went back: %v", seen)
		}
	}
}
