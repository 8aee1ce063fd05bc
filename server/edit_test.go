package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

// ref names line n of text the way a read shows it.
func ref(text string, n int) string {
	l := splitLSP(text)[n-1]
	return fmt.Sprintf("%d:%s", n, hashOf(l))
}

func edit(t *testing.T, e *lsptest.Editor, u string, edits []map[string]any, extra map[string]any) engine.EditResult {
	t.Helper()
	p := map[string]any{"textDocument": map[string]string{"uri": u}, "edits": edits}
	for k, v := range extra {
		p[k] = v
	}
	var res engine.EditResult
	if err := e.Call("sightline/edit", p, &res); err != nil {
		t.Fatalf("sightline/edit: %v", err)
	}
	return res
}

func TestEditAppliedThroughEditor(t *testing.T) {
	src := "package a\n\nfunc A() {\n\treturn\n}\n"
	e, root := start(t, map[string]string{"a.go": src}, lsptest.Options{})
	u := fileURI(root, "a.go")
	e.Open(u, "go", src)
	read(t, e, u, nil, nil)

	res := edit(t, e, u, []map[string]any{
		{"type": "replace_line", "ref": ref(src, 4), "new_content": "\treturn // done"},
		{"type": "insert_after", "ref": ref(src, 5), "new_content": "\nfunc B() {}"},
	}, nil)
	if !res.OK || !res.Applied {
		t.Fatalf("edit refused: %+v", res.Outcome)
	}
	want := "package a\n\nfunc A() {\n\treturn // done\n}\n\nfunc B() {}\n"
	if got := e.Buffer(u); got != want {
		t.Fatalf("buffer after edit:\n%q\nwant\n%q", got, want)
	}
	if res.Version == nil || *res.Version != 2 || !strings.Contains(res.Diff, "+\treturn // done") {
		t.Fatalf("answer: version %v diff %q", res.Version, res.Diff)
	}
	if !strings.Contains(res.Window, "4:"+hashOf("\treturn // done")+"|\treturn // done") {
		t.Fatalf("window lacks fresh refs: %q", res.Window)
	}
	// The disk is untouched until the user saves.
	if disk, _ := os.ReadFile(filepath.Join(root, "a.go")); string(disk) != src {
		t.Fatalf("disk written under an open buffer: %q", disk)
	}
	// Lines the agent wrote are authored, not stale.
	var led engine.LedgerResult
	e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &led)
	d := led.Documents[0]
	if len(d.Stale) != 0 || !hasRange(d.Authored, ledger.Range{Start: 4, End: 4}) || d.State != ledger.FullyRead {
		t.Fatalf("ledger after own edit: %+v", d)
	}
}

func TestEditRefusedByEditorChangesNothing(t *testing.T) {
	src := "a\nb\nc\n"
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{})
	u := fileURI(root, "x.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	e.ApplyEdit = func(protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		reason := "the user said no"
		return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}
	}
	var before engine.LedgerResult
	e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &before)
	res := edit(t, e, u, []map[string]any{{"type": "delete_line", "ref": ref(src, 2)}}, nil)
	if res.OK || res.Error != "version_conflict" || !strings.Contains(res.Message, "the user said no") {
		t.Fatalf("refusal: %+v", res.Outcome)
	}
	if e.Buffer(u) != src {
		t.Fatal("buffer changed")
	}
	var after engine.LedgerResult
	e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &after)
	if b, a := mustJSON(before.Documents), mustJSON(after.Documents); a != b {
		t.Fatalf("ledger changed by a refused edit:\n%s\n%s", b, a)
	}
}

func TestUserTypingBetweenReadAndEdit(t *testing.T) {
	src := "one\ntwo\nthree\nfour\n"
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{})
	u := fileURI(root, "x.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	// The user inserts a line at the top and changes "three".
	e.Change(u, lsptest.Edit{StartLine: 0, StartChar: 0, EndLine: 0, EndChar: 0, Text: "zero\n"})
	e.Change(u, lsptest.Edit{StartLine: 3, StartChar: 0, EndLine: 3, EndChar: 5, Text: "THREE"})

	// A ref to "two" (line 2 when read) still resolves: it moved to line 3.
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 2), "new_content": "TWO"}}, nil)
	if !res.OK || len(res.Remapped) != 1 || res.Remapped[0].Line != 3 {
		t.Fatalf("moved ref: %+v remapped %+v", res.Outcome, res.Remapped)
	}
	if got := e.Buffer(u); got != "zero\none\nTWO\nTHREE\nfour\n" {
		t.Fatalf("buffer %q", got)
	}
	// A ref to "three" is stale: the user changed it.
	res = edit(t, e, u, []map[string]any{{"type": "delete_line", "ref": ref(src, 3)}}, nil)
	if res.OK || res.Error != "stale_ref" || res.FailingEditIndex == nil || *res.FailingEditIndex != 0 ||
		res.ExpectedHash != hashOf("three") || res.ActualHash != hashOf("TWO") || len(res.FreshRefs) == 0 {
		t.Fatalf("stale ref: %+v", res)
	}
	if e.Buffer(u) != "zero\none\nTWO\nTHREE\nfour\n" {
		t.Fatal("a refused edit changed the buffer")
	}
}

func TestDuplicateLines(t *testing.T) {
	src := "func a() {\n}\nfunc b() {\n}\n"
	e, root := start(t, map[string]string{"x.go": src}, lsptest.Options{})
	u := fileURI(root, "x.go")
	e.Open(u, "go", src)
	read(t, e, u, nil, nil)
	// The user deletes "func a() {" so the old line 2 ("}") is now line 1 and
	// line 2 holds "func b() {"; old line 4 ("}") is line 3. A ref "4:}" now
	// could mean the "}" that moved to 3 — line 4 does not exist: one candidate.
	e.Change(u, lsptest.Edit{StartLine: 0, StartChar: 0, EndLine: 1, EndChar: 0, Text: ""})
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 4), "new_content": "} // b"}}, nil)
	if !res.OK || e.Buffer(u) != "}\nfunc b() {\n} // b\n" {
		t.Fatalf("moved duplicate: %+v %q", res.Outcome, e.Buffer(u))
	}
	// The user puts another "}" on top: the ref the agent holds names the "}"
	// it saw (now line 2), never the new one it did not see.
	src2 := e.Buffer(u)
	read(t, e, u, nil, nil)
	e.Change(u, lsptest.Edit{StartLine: 0, StartChar: 0, EndLine: 0, EndChar: 0, Text: "}\n"})
	res = edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src2, 1), "new_content": "} // seen"}}, nil)
	if !res.OK || e.Buffer(u) != "}\n} // seen\nfunc b() {\n} // b\n" {
		t.Fatalf("duplicate slid into place: %+v %q", res.Outcome, e.Buffer(u))
	}
}

// TestAmbiguousRef: the read put one "}" at the ref's line number, the
// current text (after typing the agent did not see) another it also saw;
// both still exist: the ref is refused, never guessed. A newer read settles
// it: its numbers are the ones an agent edits by.
func TestAmbiguousRef(t *testing.T) {
	src := "}\n}\nz\n"
	e, root := start(t, map[string]string{"x.go": src}, lsptest.Options{})
	u := fileURI(root, "x.go")
	e.Open(u, "go", src)
	read(t, e, u, nil, nil) // line 2 is the second "}"
	e.Change(u, lsptest.Edit{StartLine: 0, StartChar: 0, EndLine: 0, EndChar: 0, Text: "w\n"})
	// Line 2 is now the first "}", which the agent saw too.
	res := edit(t, e, u, []map[string]any{{"type": "delete_line", "ref": "2:" + hashOf("}")}}, nil)
	if res.OK || res.Error != "ambiguous_ref" || len(res.Candidates) != 2 || res.Candidates[0] != 2 || res.Candidates[1] != 3 {
		t.Fatalf("ambiguous: %+v candidates %v", res.Outcome, res.Candidates)
	}
	if e.Buffer(u) != "w\n}\n}\nz\n" {
		t.Fatal("ambiguous edit changed the buffer")
	}
	read(t, e, u, nil, nil) // line 2 is the first "}"
	res = edit(t, e, u, []map[string]any{{"type": "delete_line", "ref": "2:" + hashOf("}")}}, nil)
	if !res.OK || e.Buffer(u) != "w\n}\nz\n" {
		t.Fatalf("after a re-read: %+v %q", res.Outcome, e.Buffer(u))
	}
}

func TestRemapAfterOwnInsert(t *testing.T) {
	src := "a\nb\nc\nd\n"
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{})
	u := fileURI(root, "x.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	if res := edit(t, e, u, []map[string]any{{"type": "insert_before", "ref": ref(src, 1), "new_content": "x\ny"}}, nil); !res.OK {
		t.Fatal(res.Message)
	}
	// The agent's memory still says "4:d": it is line 6 now.
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 4), "new_content": "D"}}, nil)
	if !res.OK || len(res.Remapped) != 1 || res.Remapped[0] != (engine.Remap{Ref: ref(src, 4), Line: 6}) {
		t.Fatalf("remap: %+v %+v", res.Outcome, res.Remapped)
	}
	if e.Buffer(u) != "x\ny\na\nb\nc\nD\n" {
		t.Fatalf("buffer %q", e.Buffer(u))
	}
}

func TestGuardAndAutoExpandRetry(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	src := b.String()
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{})
	u := fileURI(root, "x.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, &ledger.Range{Start: 1, End: 50}, nil)
	edits := []map[string]any{{"type": "replace_range", "start_ref": ref(src, 48), "end_ref": ref(src, 55), "new_content": "merged"}}
	res := edit(t, e, u, edits, nil)
	if res.OK || res.Error != "unread_range" || res.Message[:len("Lines 51-55 were not read. Read that range first.")] != "Lines 51-55 were not read. Read that range first." {
		t.Fatalf("guard: %+v", res.Outcome)
	}
	if len(res.ExpandedRanges) != 1 || res.ExpandedRanges[0] != (ledger.Range{Start: 51, End: 55}) || !strings.HasPrefix(res.Expanded, "51:") {
		t.Fatalf("auto-expand: %+v %q", res.ExpandedRanges, res.Expanded)
	}
	if e.Buffer(u) != src {
		t.Fatal("blocked edit changed the buffer")
	}
	// The retry succeeds at once.
	if res := edit(t, e, u, edits, nil); !res.OK {
		t.Fatalf("retry: %+v", res.Outcome)
	}
	// Lines changed by the user since the read are refused too.
	e.Change(u, lsptest.Edit{StartLine: 2, StartChar: 0, EndLine: 2, EndChar: 4, Text: "LINE"})
	cur := e.Buffer(u)
	res = edit(t, e, u, []map[string]any{{"type": "delete_range", "start_ref": ref(cur, 2), "end_ref": ref(cur, 4)}}, nil)
	if res.OK || res.Error != "stale_range" || !strings.HasPrefix(res.Message, "Line 3 changed since you read it. Read it again.") {
		t.Fatalf("stale guard: %+v", res.Outcome)
	}
	var st engine.StatsResult
	if err := e.Call("sightline/stats", nil, &st); err != nil {
		t.Fatal(err)
	}
	m := st.Methods["sightline/edit"]
	if m.Calls != 3 || m.Success != 1 || m.Stale != 1 || m.Refused != 1 || st.Guard.Trips != 2 || st.Guard.Expanded != 2 || st.Guard.Resolved != 1 {
		t.Fatalf("stats: %s", mustJSON(st))
	}
}

func TestDiskEditKeepsBytes(t *testing.T) {
	src := "\ufeffline one\r\n\tindented\r\nthird\r\nlast without newline"
	e, root := start(t, map[string]string{"crlf.txt": src}, lsptest.Options{})
	path := filepath.Join(root, "crlf.txt")
	os.Chmod(path, 0o640)
	u := fileURI(root, "crlf.txt")
	res := read(t, e, u, nil, nil)
	if !strings.HasPrefix(res.Content, "1:"+hashOf("line one")+"|line one\n") {
		t.Fatalf("BOM shown or hashed: %q", res.Content)
	}
	ed := edit(t, e, u, []map[string]any{
		{"type": "replace_line", "ref": "1:" + hashOf("line one"), "new_content": "LINE ONE"},
		{"type": "insert_after", "ref": "4:" + hashOf("last without newline"), "new_content": "appended"},
	}, nil)
	if !ed.OK || !ed.Applied {
		t.Fatalf("disk edit: %+v", ed.Outcome)
	}
	got, _ := os.ReadFile(path)
	want := "\ufeffLINE ONE\r\n\tindented\r\nthird\r\nlast without newline\r\nappended"
	if string(got) != want {
		t.Fatalf("disk bytes:\n%q\nwant\n%q", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}
	leftovers, _ := filepath.Glob(filepath.Join(root, ".crlf.txt.sightline-*"))
	if len(leftovers) != 0 {
		t.Fatalf("temp files left: %v", leftovers)
	}
	// Changed on disk behind sightline's back: refused, nothing written.
	os.WriteFile(path, []byte("other\r\n"), 0o640)
	ed = edit(t, e, u, []map[string]any{{"type": "delete_line", "ref": "1:" + hashOf("LINE ONE")}}, map[string]any{"fileHash": ed.FileHash})
	if ed.OK || ed.Error != "file_changed" {
		t.Fatalf("changed file: %+v", ed.Outcome)
	}
	// Deleted: not_found, not recreated.
	os.Remove(path)
	ed = edit(t, e, u, []map[string]any{{"type": "delete_line", "ref": "1:" + hashOf("other")}}, nil)
	if ed.OK || ed.Error != "not_found" {
		t.Fatalf("deleted file: %+v", ed.Outcome)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("deleted file recreated")
	}
}

func TestDirtyBufferNeverWrittenOnDisk(t *testing.T) {
	src := "a\nb\n"
	caps := `{"general":{"positionEncodings":["utf-16"]}}` // no applyEdit
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{Capabilities: json.RawMessage(caps)})
	u := fileURI(root, "x.txt")
	e.Open(u, "plaintext", src)
	e.Change(u, lsptest.Edit{StartLine: 1, StartChar: 1, EndLine: 1, EndChar: 1, Text: "!"}) // unsaved
	read(t, e, u, nil, nil)
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": "1:" + hashOf("a"), "new_content": "A"}}, nil)
	if res.OK || res.Error != "file_changed" || !strings.Contains(res.Message, "unsaved") {
		t.Fatalf("dirty buffer: %+v", res.Outcome)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "x.txt")); string(disk) != src {
		t.Fatalf("disk written: %q", disk)
	}
}

func TestEditBadInput(t *testing.T) {
	src := "a\nb\n"
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{})
	u := fileURI(root, "x.txt")
	read(t, e, u, nil, nil)
	for _, c := range []struct {
		edits any
		kind  string
	}{
		{[]map[string]any{{"type": "explode", "ref": "1:" + hashOf("a")}}, "invalid_edit"},
		{[]map[string]any{{"type": "replace_line", "ref": "1:zz", "new_content": "x"}}, "invalid_ref"},
		{[]map[string]any{{"type": "replace_line", "ref": "1:" + hashOf("a"), "new_content": "1:" + hashOf("a") + "|A"}}, "invalid_edit"},
		{[]map[string]any{{"type": "delete_line", "ref": "1:" + hashOf("a")}, {"type": "replace_line", "ref": "1:" + hashOf("a"), "new_content": "x"}}, "overlap"},
		{[]map[string]any{{"type": "insert_after", "ref": "1:" + hashOf("a"), "new_content": "x"}, {"type": "insert_before", "ref": "2:" + hashOf("b"), "new_content": "y"}}, "overlap"},
		{[]map[string]any{{"type": "delete_line", "ref": "9:" + hashOf("a")}}, "stale_ref"},
	} {
		res := edit(t, e, u, nil, map[string]any{"edits": c.edits})
		if res.OK || string(res.Error) != c.kind || res.Message == "" {
			t.Errorf("%s: got %+v, want %s", mustJSON(c.edits), res.Outcome, c.kind)
		}
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "x.txt")); string(disk) != src {
		t.Fatalf("refused edits wrote: %q", disk)
	}
	var raw json.RawMessage
	if err := e.Call("sightline/edit", map[string]any{"textDocument": map[string]string{"uri": u}}, &raw); err == nil {
		t.Fatal("edit without edits accepted")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestGuardModes: warn lets an edit of unread lines through with a warning;
// off does not ask.
func TestGuardModes(t *testing.T) {
	src := "a\nb\nc\n"
	for _, mode := range []string{"warn", "off"} {
		t.Run(mode, func(t *testing.T) {
			e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{InitOptions: json.RawMessage(`{"sightline":{"guard":"` + mode + `"}}`)})
			u := fileURI(root, "x.txt")
			read(t, e, u, &ledger.Range{Start: 1, End: 1}, nil)
			res := edit(t, e, u, []map[string]any{{"type": "replace_range", "start_ref": ref(src, 1), "end_ref": ref(src, 3), "new_content": "z"}}, nil)
			if !res.OK {
				t.Fatalf("%s: refused: %+v", mode, res.Outcome)
			}
			warned := strings.Contains(strings.Join(res.Warnings, " "), "Lines 2-3 were not read")
			if warned != (mode == "warn") {
				t.Fatalf("%s: warnings %v", mode, res.Warnings)
			}
		})
	}
}

// TestEditDryRunAndFullRefresh: a dry run answers with the diff and the
// would-be window and changes nothing; fullRefresh answers with every line.
func TestEditDryRunAndFullRefresh(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	src := b.String()
	e, root := start(t, map[string]string{"x.txt": src}, lsptest.Options{})
	u := fileURI(root, "x.txt")
	read(t, e, u, nil, nil)
	edits := []map[string]any{{"type": "replace_line", "ref": ref(src, 15), "new_content": "fifteen"}}
	res := edit(t, e, u, edits, map[string]any{"dryRun": true})
	if !res.OK || res.Applied || !res.DryRun || !strings.Contains(res.Diff, "+fifteen") || res.WindowRange == nil || *res.WindowRange != (ledger.Range{Start: 10, End: 20}) {
		t.Fatalf("dry run: %+v window %v", res.Outcome, res.WindowRange)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "x.txt")); string(b) != src {
		t.Fatal("dry run wrote")
	}
	res = edit(t, e, u, edits, map[string]any{"fullRefresh": true})
	if !res.OK || !res.Applied || res.WindowRange == nil || *res.WindowRange != (ledger.Range{Start: 1, End: 30}) || !strings.Contains(res.Window, "15:"+hashOf("fifteen")+"|fifteen") {
		t.Fatalf("full refresh: %+v window %v", res.Outcome, res.WindowRange)
	}
}

// TestEditAnswerHashOfLargeBuffer: for a large open document the new file
// hash is computed while the editor applies the edit, and the answer's
// fileHash is the hash of the buffer the editor then holds, edit after edit.
func TestEditAnswerHashOfLargeBuffer(t *testing.T) {
	var src strings.Builder
	for i := 0; i < 40000; i++ { // 1.4 MB: over the size hashed ahead
		fmt.Fprintf(&src, "\tvalue%d := compute(%d) // line\n", i, i)
	}
	root := t.TempDir()
	e := lsptest.Start(t, lsptest.Options{Root: root, Server: serverOpts(t)})
	u := "file://" + root + "/big.go"
	e.Open(u, "go", src.String())
	var rr engine.ReadResult
	if err := e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}, "budget": map[string]int{"chars": 1 << 24}}, &rr); err != nil || !rr.OK {
		t.Fatal(err, rr.Message)
	}
	content := "\tvalue20000 := compute(20000) // line"
	for i := range 3 {
		next := fmt.Sprintf("\tvalue20000 := compute(%d) // edited", i)
		var res engine.EditResult
		if err := e.Call("sightline/edit", map[string]any{"textDocument": map[string]string{"uri": u}, "edits": []map[string]any{
			{"type": "replace_line", "ref": "20001:" + hashOf(content), "new_content": next},
		}}, &res); err != nil || !res.OK {
			t.Fatalf("edit %d: %v %+v", i, err, res.Outcome)
		}
		sum := sha256.Sum256([]byte(e.Buffer(u)))
		if want := "sha256:" + hex.EncodeToString(sum[:]); res.FileHash != want {
			t.Fatalf("edit %d: fileHash %s, the buffer's is %s", i, res.FileHash, want)
		}
		content = next
	}
}
