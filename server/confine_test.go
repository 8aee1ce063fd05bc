package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestURIPathCases: URIs that name a file outside the workspace, by any
// spelling or link, are denied; links that stay inside work.
func TestURIPathCases(t *testing.T) {
	e, root := start(t, map[string]string{"a/b/c.txt": "in\n", "d.txt": "d\n"}, lsptest.Options{})
	outDir := t.TempDir()
	os.WriteFile(filepath.Join(outDir, "x.txt"), []byte("SECRET\n"), 0o644)
	os.Symlink(filepath.Join(outDir, "x.txt"), filepath.Join(root, "o2"))
	os.Symlink("o2", filepath.Join(root, "o1"))
	os.Symlink("a/b/c.txt", filepath.Join(root, "l1"))
	os.Symlink("nowhere", filepath.Join(root, "dangling"))
	rel, _ := filepath.Rel(root, filepath.Join(outDir, "x.txt"))
	base := "file://" + filepath.ToSlash(root)

	for _, u := range []string{
		base + "/" + filepath.ToSlash(rel),
		base + "/%2e%2e/" + filepath.Base(outDir) + "/x.txt",
		base + "/a/%2E%2E/%2E%2E/" + strings.ReplaceAll(filepath.ToSlash(rel), "../", "%2e%2e/"),
		base + "/o1",
		base + "/o2",
		"file://" + filepath.ToSlash(filepath.Join(outDir, "x.txt")),
		"file://server/share" + filepath.ToSlash(filepath.Join(root, "d.txt")),
		base + "/d%00.txt",
	} {
		var rr engine.ReadResult
		e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}}, &rr)
		if rr.OK || strings.Contains(rr.Content, "SECRET") {
			t.Errorf("read %s: %+v", u, rr.Outcome)
		}
		var wr engine.WriteResult
		e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": u}, "mode": "append", "content": "pwned\n"}, &wr)
		if wr.OK {
			t.Errorf("append %s: %+v", u, wr.Outcome)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outDir, "x.txt")); string(b) != "SECRET\n" {
		t.Fatalf("outside file changed: %q", b)
	}
	if rr := read(t, e, base+"/l1", nil, nil); !rr.OK || !strings.Contains(rr.Content, "|in") {
		t.Errorf("read through an inside link: %+v", rr.Outcome)
	}
	var rr engine.ReadResult
	e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": base + "/dangling"}}, &rr)
	if rr.OK || rr.Error != "denied" || !strings.Contains(rr.Message, "dangling") {
		t.Errorf("read of a dangling link: %+v", rr.Outcome)
	}
}

// TestOutsideBufferRefusedApplyViaDisk: applyVia "disk" writes the disk, but
// never the disk outside the workspace, buffer or not.
func TestOutsideBufferRefusedApplyViaDisk(t *testing.T) {
	e, _ := start(t, map[string]string{"in.txt": "x\n"}, lsptest.Options{InitOptions: json.RawMessage(`{"applyVia":"disk","guard":"off"}`)})
	outside := filepath.Join(t.TempDir(), "out.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	u := "file://" + outside
	e.Open(u, "plaintext", "secret\n")
	for _, mode := range []string{"append", "overwrite"} {
		var wr engine.WriteResult
		e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": u}, "mode": mode, "content": "y\n"}, &wr)
		if wr.OK || wr.Error != "denied" {
			t.Errorf("%s to an outside buffer with applyVia disk: %+v", mode, wr.Outcome)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "secret\n" {
		t.Fatalf("outside file written: %q", b)
	}
}

// TestSymlinkSwapRaceLSP: a process swaps r.txt between a file and a link to
// a file outside the workspace while the agent reads and writes it over
// LSP: nothing outside is ever read or written.
func TestSymlinkSwapRaceLSP(t *testing.T) {
	e, root := start(t, map[string]string{"r.txt": "inside\n"}, lsptest.Options{InitOptions: json.RawMessage(`{"guard":"off"}`)})
	outside := filepath.Join(t.TempDir(), "secret.txt")
	const secret = "SECRET outside\n"
	os.WriteFile(outside, []byte(secret), 0o644)
	r := filepath.Join(root, "r.txt")
	u := fileURI(root, "r.txt")
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			tl, tr := filepath.Join(root, ".swap-link"), filepath.Join(root, ".swap-reg")
			os.Remove(tl)
			os.Symlink(outside, tl)
			os.Rename(tl, r)
			os.WriteFile(tr, []byte("inside\n"), 0o644)
			os.Rename(tr, r)
		}
	}()
	deadline := time.Now().Add(2 * time.Second)
	calls := 0
	for time.Now().Before(deadline) {
		var rr engine.ReadResult
		e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}}, &rr)
		if strings.Contains(rr.Content, "SECRET") {
			t.Errorf("read returned the outside file")
		}
		for _, mode := range []string{"overwrite", "append"} {
			var wr engine.WriteResult
			e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": u}, "mode": mode, "content": "w\n"}, &wr)
			if b, _ := os.ReadFile(outside); string(b) != secret {
				t.Errorf("%s wrote the outside file: %q", mode, b)
				os.WriteFile(outside, []byte(secret), 0o644)
			}
		}
		calls += 3
	}
	close(stop)
	<-done
	t.Logf("%d calls during the swap", calls)
}
