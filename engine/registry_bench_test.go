package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// bigTree makes a tree of dirs × per files (and a .gitignore).
func bigTree(b *testing.B, dirs, per int) string {
	root := b.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\nbuild/\n"), 0o644)
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d/sub%02d", d/10, d%10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range per {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), []byte("package p\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkFiles lists a 100,000-file tree: cold (a new process's first
// listing: nothing remembered) and warm (the same process again).
func BenchmarkFiles(b *testing.B) {
	root := bigTree(b, 1000, 100)
	newEnv := func() *Env {
		return NewEnv(workspace.New([]string{root}, workspace.Options{}), ledger.New(ledger.Options{}), config.Default(), nil)
	}
	ctx := context.Background()
	b.Run("warm without watchers", func(b *testing.B) {
		env := newEnv()
		env.Files(ctx, FilesParams{})
		for b.Loop() {
			if _, err := env.Files(ctx, FilesParams{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			res, err := newEnv().Files(ctx, FilesParams{})
			if err != nil || len(res.Files) != 100_001 {
				b.Fatalf("%d files, %v", len(res.Files), err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		// A server whose editor reports file changes keeps the walk.
		env := newEnv()
		env.WatchingFiles(true)
		env.Files(ctx, FilesParams{})
		for b.Loop() {
			if _, err := env.Files(ctx, FilesParams{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAuditRow is what auditing costs a request: the entry is kept in
// memory and written to the database behind the call.
func BenchmarkAuditRow(b *testing.B) {
	root := b.TempDir()
	env := Setup(context.Background(), Options{Roots: []string{root}, Config: config.Default(), StateDir: b.TempDir(), LockDir: b.TempDir()})
	defer env.Close(context.Background())
	ctx := context.Background()
	c := Caller{Session: "s", Agent: "a"}
	for b.Loop() {
		o := Outcome{OK: true}
		o.audit(auditRow{caller: c, path: "a.go", before: "sha256:00"})
		env.Finish(WithMethod(ctx, "sightline/read"), &o, time.Millisecond)
	}
	b.StopTimer()
	env.audits.drain()
}

// BenchmarkHistorySnapshot stores a 1 MB text the history has not seen
// (compression and the database write; done behind the write).
func BenchmarkHistorySnapshot(b *testing.B) {
	db, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "\tline %d: x := compute(%d, y) // some ordinary source text\n", i, i*7)
	}
	base := sb.String()[:1<<20]
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		text := []byte(fmt.Sprintf("%08d", i) + base[8:])
		if _, err := db.Record(ctx, store.Write{Path: "big.go", After: store.Text{Hash: fileHash(text), Size: len(text), Bytes: func() []byte { return text }}, Version: store.Version{Method: "bench"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// fileHash is the file hash of b.
func fileHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hashline.FileHashOf(sum[:])
}
