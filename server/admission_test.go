package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestAdmissionOpenBuffersFollowTheRules: an editor buffer is admitted by
// the rules of its file: .git's config and hooks, and a denied path, are
// refused whether their text comes from the disk or from the editor, named
// directly or through a symbolic link.
func TestAdmissionOpenBuffersFollowTheRules(t *testing.T) {
	e, root := start(t, map[string]string{
		".git/config":           "[core]\n\trepositoryformatversion = 0\n",
		".git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
		".git/HEAD":             "ref: refs/heads/main\n",
		"secrets/k.txt":         "TOKEN\n",
		".sightline.json":       `{"policy":{"deny":["secrets/**"]}}`,
		"ok.txt":                "fine\n",
	}, lsptest.Options{})
	if err := os.Symlink(".git", filepath.Join(root, "glink")); err != nil {
		t.Fatal(err)
	}
	buffers := map[string]string{
		".git/config":           "[core]\n\tfsmonitor = BUFFERSECRET\n",
		".git/hooks/pre-commit": "#!/bin/sh\necho BUFFERSECRET\n",
		"glink/config":          "[core]\n\tfsmonitor = BUFFERSECRET\n",
		"secrets/k.txt":         "BUFFERSECRET\n",
	}
	for name, text := range buffers {
		e.Open(fileURI(root, name), "plaintext", text)
	}
	for name := range buffers {
		u := fileURI(root, name)
		if rr := read(t, e, u, nil, nil); rr.OK || rr.Error != "denied" || strings.Contains(rr.Content, "SECRET") {
			t.Errorf("read of the buffer of %s: %+v %q", name, rr.Outcome, rr.Content)
		}
		var sr engine.SummaryResult
		e.Call("sightline/summary", map[string]any{"textDocument": map[string]string{"uri": u}}, &sr)
		if sr.OK || sr.Error != "denied" {
			t.Errorf("summary of the buffer of %s: %+v", name, sr.Outcome)
		}
		var wr engine.WriteResult
		e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": u}, "mode": "overwrite", "content": "x\n"}, &wr)
		if wr.OK || wr.Error != "denied" {
			t.Errorf("write of the buffer of %s: %+v", name, wr.Outcome)
		}
	}
	// What the rules allow still reads, buffer or not.
	e.Open(fileURI(root, ".git/HEAD"), "plaintext", "ref: refs/heads/buffer\n")
	if rr := read(t, e, fileURI(root, ".git/HEAD"), nil, nil); !rr.OK || !strings.Contains(rr.Content, "buffer") {
		t.Errorf("read of the buffer of .git/HEAD: %+v", rr.Outcome)
	}
	if rr := read(t, e, fileURI(root, "ok.txt"), nil, nil); !rr.OK {
		t.Errorf("read of ok.txt: %+v", rr.Outcome)
	}
}

// TestAdmissionHardLinkedBuffer: an editor buffer of a file with several hard
// links is judged by the file, as a read of the disk is: sensitive.
func TestAdmissionHardLinkedBuffer(t *testing.T) {
	userConfig(t, "")
	e, root := start(t, map[string]string{".env": "API_KEY=abc123\n", "one.txt": "one\n"}, lsptest.Options{})
	if err := os.Link(filepath.Join(root, ".env"), filepath.Join(root, "hard.txt")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if rr := read(t, e, fileURI(root, "hard.txt"), nil, nil); rr.OK || rr.Error != "approval_refused" || !strings.Contains(rr.Message, "2 hard links") || strings.Contains(rr.Content, "abc123") {
		t.Errorf("read of hard.txt on disk: %+v", rr.Outcome)
	}
	e.Open(fileURI(root, "hard.txt"), "plaintext", "API_KEY=abc123\n")
	if rr := read(t, e, fileURI(root, "hard.txt"), nil, nil); rr.OK || rr.Error != "approval_refused" || strings.Contains(rr.Content, "abc123") {
		t.Errorf("read of the buffer of hard.txt: %+v", rr.Outcome)
	}
	var wr engine.WriteResult
	e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": fileURI(root, "hard.txt")}, "mode": "append", "content": "x\n"}, &wr)
	if wr.OK || wr.Error != "approval_refused" {
		t.Errorf("write of the buffer of hard.txt: %+v", wr.Outcome)
	}
	if rr := read(t, e, fileURI(root, "one.txt"), nil, nil); !rr.OK {
		t.Errorf("read of one.txt: %+v", rr.Outcome)
	}
}
