package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestApplyPatchOpenBuffer: a patch to a document open in the editor changes
// the buffer through workspace/applyEdit and leaves the disk alone.
func TestApplyPatchOpenBuffer(t *testing.T) {
	src := numbered(10)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{})
	u := fileURI(root, "f.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	p := "--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+FIVE\n line 6\n"
	var res engine.PatchResult
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p}, &res); err != nil {
		t.Fatal(err)
	}
	if !res.OK || e.Buffer(u) != strings.Replace(src, "line 5\n", "FIVE\n", 1) {
		t.Fatalf("patch: %+v %q", res.Outcome, e.Buffer(u))
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(disk) != src {
		t.Fatal("disk written under an open buffer")
	}
	// A patch whose file is outside the workspace is denied.
	out := "--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-a\n+b\n"
	if err := e.Call("sightline/applyPatch", map[string]any{"text": out}, &res); err != nil || res.OK || res.Error != "denied" {
		t.Fatalf("outside: %v %+v", err, res.Outcome)
	}
}

// TestPatchConflictFreshRefs: a hunk that does not apply is named, with the
// current lines around its closest match as fresh refs; those lines count as
// read, so a corrected patch applies without another read.
func TestPatchConflictFreshRefs(t *testing.T) {
	src := numbered(30)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{})
	u := fileURI(root, "f.txt")
	stale := "--- a/f.txt\n+++ b/f.txt\n@@ -14,3 +14,3 @@\n line 14\n-line 15 old\n+FIFTEEN\n line 16\n"
	var res engine.PatchResult
	if err := e.Call("sightline/applyPatch", map[string]any{"text": stale, "session": "fresh"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.OK || len(res.Files) != 1 || res.Files[0].Hunk != 1 || len(res.Files[0].FreshRefs) == 0 || res.Files[0].Merge != "" {
		t.Fatalf("conflict: %+v", res)
	}
	refs := strings.Join(res.Files[0].FreshRefs, "\n")
	if !strings.Contains(refs, "15:") || !strings.Contains(refs, "|line 15") {
		t.Fatalf("fresh refs do not show line 15:\n%s", refs)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(disk) != src {
		t.Fatal("written")
	}
	good := "--- a/f.txt\n+++ b/f.txt\n@@ -14,3 +14,3 @@\n line 14\n-line 15\n+FIFTEEN\n line 16\n"
	if err := e.Call("sightline/applyPatch", map[string]any{"text": good, "session": "fresh"}, &res); err != nil || !res.OK {
		t.Fatalf("corrected patch (lines shown count as read): %v %+v", err, res)
	}
	_ = u
}

// TestPatchMergeOverLSP: a patch made before the file moved on (a context
// line changed) is proposed as a three-way merge; the user refuses it once
// (nothing written) and approves it once (applied exactly).
func TestPatchMergeOverLSP(t *testing.T) {
	userConfig(t, "")
	src := numbered(30)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{Capabilities: json.RawMessage(askingCaps)})
	u := fileURI(root, "f.txt")
	read(t, e, u, nil, nil)
	var asked []string
	answer := ""
	e.ShowMessageRequest = func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		asked = append(asked, p.Message)
		if answer == "" {
			return nil
		}
		return &protocol.MessageActionItem{Title: answer}
	}
	// The patch was made when line 14 read "line fourteen".
	p := "--- a/f.txt\n+++ b/f.txt\n@@ -13,4 +13,4 @@\n line 13\n line fourteen\n-line 15\n+FIFTEEN\n line 16\n"
	var res engine.PatchResult
	// Without merge: a proposal, nobody asked.
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p}, &res); err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Files[0].Merge == "" || !strings.Contains(res.Files[0].Merge, "+FIFTEEN") || len(asked) != 0 {
		t.Fatalf("proposal: %+v asked %d", res, len(asked))
	}
	// Refused.
	answer = "Reject"
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p, "merge": true}, &res); err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Error != "approval_refused" || len(asked) != 1 || !strings.Contains(asked[0], "+FIFTEEN") {
		t.Fatalf("refused: %+v asked %q", res.Outcome, asked)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(disk) != src {
		t.Fatal("a refused merge was written")
	}
	// Approved.
	answer = "Apply merge"
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p, "merge": true}, &res); err != nil || !res.OK {
		t.Fatalf("approved: %v %+v", err, res)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(disk) != strings.Replace(src, "line 15\n", "FIFTEEN\n", 1) {
		t.Fatalf("merged: %q", disk)
	}
}

// TestPatchOpenDocumentsTogether: a patch of two open documents reaches the
// editor as one workspace/applyEdit with a TextDocumentEdit for each; when
// the editor refuses it (a buffer moved on), neither document changes and
// nothing is written.
func TestPatchOpenDocumentsTogether(t *testing.T) {
	src := numbered(10)
	e, root := start(t, map[string]string{"a.txt": src, "b.txt": src}, lsptest.Options{})
	ua, ub := fileURI(root, "a.txt"), fileURI(root, "b.txt")
	e.Open(ua, "plaintext", src)
	e.Open(ub, "plaintext", src)
	read(t, e, ua, nil, nil)
	read(t, e, ub, nil, nil)
	p := "--- a/a.txt\n+++ b/a.txt\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+FIVE\n line 6\n" +
		"--- a/b.txt\n+++ b/b.txt\n@@ -7,3 +7,3 @@\n line 7\n-line 8\n+EIGHT\n line 9\n"
	var calls []int
	refuse := true
	e.ApplyEdit = func(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		calls = append(calls, len(p.Edit.DocumentChanges))
		if refuse {
			why := "buffer changed"
			return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &why}
		}
		return e.DefaultApplyEdit(p)
	}
	var res engine.PatchResult
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p}, &res); err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Error != "version_conflict" || len(calls) != 1 || calls[0] != 2 {
		t.Fatalf("refused: %+v calls %v", res, calls)
	}
	if e.Buffer(ua) != src || e.Buffer(ub) != src {
		t.Fatal("a refused edit changed a buffer")
	}
	refuse = false
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p}, &res); err != nil || !res.OK {
		t.Fatalf("applied: %v %+v", err, res)
	}
	if len(calls) != 2 || calls[1] != 2 {
		t.Fatalf("applyEdit calls: %v (want one carrying both documents)", calls)
	}
	if e.Buffer(ua) != strings.Replace(src, "line 5\n", "FIVE\n", 1) || e.Buffer(ub) != strings.Replace(src, "line 8\n", "EIGHT\n", 1) {
		t.Fatalf("buffers: %q %q", e.Buffer(ua), e.Buffer(ub))
	}
	for _, n := range []string{"a.txt", "b.txt"} {
		if disk, _ := os.ReadFile(filepath.Join(root, n)); string(disk) != src {
			t.Fatal("disk written under an open buffer")
		}
	}
}

// A patch is audited once, whichever way it ends: a row per file it names,
// or one for a patch that names none it could read; its dry run too.
func TestPatchAuditedOnce(t *testing.T) {
	e, root := start(t, map[string]string{"f.txt": "a\nb\nc\n"}, lsptest.Options{})
	u := fileURI(root, "f.txt")
	if err := e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}}, nil); err != nil {
		t.Fatal(err)
	}
	rows := func() int {
		var res engine.AuditResult
		if err := e.Call("sightline/audit", map[string]any{}, &res); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, a := range res.Entries {
			if a.Method == "sightline/applyPatch" {
				n++
			}
		}
		return n
	}
	for i, p := range []map[string]any{
		{"text": "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "dryRun": true},
		{"text": "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"text": "not a patch"},
		{"text": "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-x\n+B\n c\n"},
	} {
		var res engine.PatchResult
		if err := e.Call("sightline/applyPatch", p, &res); err != nil {
			t.Fatal(err)
		}
		if got := rows(); got != i+1 {
			t.Fatalf("after patch %d (%v %s) the audit has %d applyPatch rows, want %d", i, res.OK, res.Error, got, i+1)
		}
	}
}
