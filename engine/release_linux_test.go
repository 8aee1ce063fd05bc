package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// deletedHeld lists the files this process holds open that no name leads
// to any more (/proc/self/fd links ending in " (deleted)") under dir.
func deletedHeld(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	var held []string
	for _, fd := range fds {
		to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(to, dir) && strings.HasSuffix(to, " (deleted)") {
			held = append(held, to)
		}
	}
	return held
}

// TestReplacedFileIsFreedBehindTheAnswer: the rename that puts a new text
// in place drops the old file's last name, and the file system frees its
// blocks when its last descriptor closes: inside the rename (about 3 ms
// for 6.6 MB on ext4) unless the write still holds the old file. The write
// holds it from its check to its answer and releases it behind the
// answer, with the history's and the audit's writes; nothing stays open.
func TestReplacedFileIsFreedBehindTheAnswer(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.go")
	if err := os.WriteFile(path, []byte("package a\n\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := SetupTest(t, Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir(), LockDir: t.TempDir()})
	defer env.Close(context.Background())
	uri := string(workspace.FromPath(path))
	ctx := context.Background()
	if res, err := env.Read(ctx, ReadParams{TextDocument: TextDocument{URI: uri}, Range: &ledger.Range{Start: 1, End: 3}}); err != nil || !res.OK {
		t.Fatalf("read: %v %+v", err, res.Outcome)
	}
	// The work behind the answer waits until the answer is checked.
	wait := make(chan struct{})
	env.history.enqueue(func() { <-wait })
	raw, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("3:%s", hashline.Hash("var x = 1")), "new_content": "var x = 2"}})
	res, err := env.Edit(ctx, EditParams{TextDocument: TextDocument{URI: uri}, Edits: raw})
	if err != nil || !res.Applied {
		close(wait)
		t.Fatalf("edit: %v %+v", err, res.Outcome)
	}
	held := deletedHeld(t, root)
	close(wait)
	if len(held) != 1 {
		t.Errorf("when the edit answered, it held %d replaced files (%v), want the one it replaced", len(held), held)
	}
	env.history.drain()
	if now := deletedHeld(t, root); len(now) != 0 {
		t.Errorf("behind the answer, the replaced file is still held: %v", now)
	}
}

// readBytes is what this process has read so far (/proc/self/io rchar:
// every read and pread, from the page cache or not).
func readBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			var n int64
			fmt.Sscan(v, &n)
			return n
		}
	}
	t.Skip("no rchar in /proc/self/io")
	return 0
}

// TestEditOfAStatCachedFileDoesNotReadItAgain: a write compares the file
// it replaces with the text it planned against; when the stat cache says
// what the file's bytes hash to, and that is the planned text's hash, the
// stat is the comparison (as a read trusts it), and the file is not read
// once more. A one-line edit of a 4 MB file read 4 MB more.
func TestEditOfAStatCachedFileDoesNotReadItAgain(t *testing.T) {
	defer SetRacyAge(-time.Hour)()
	root := t.TempDir()
	path := filepath.Join(root, "big.go")
	var b strings.Builder
	b.WriteString("package big\n\nvar x = 1\n")
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "\tx := compute(%d, y) // a line of typical length\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the file system's clock tick of the write
	env := SetupTest(t, Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir(), LockDir: t.TempDir()})
	defer env.Close(context.Background())
	uri := string(workspace.FromPath(path))
	ctx := context.Background()
	// The read puts the file in the stat cache.
	if res, err := env.ReadDisk(ctx, ReadParams{TextDocument: TextDocument{URI: uri}, Range: &ledger.Range{Start: 1, End: 3}}); err != nil || !res.OK {
		t.Fatalf("read: %v %+v", err, res.Outcome)
	}
	d, err := env.admit(context.Background(), Caller{}, env.WS.Place(workspace.FromPath(path)), reportAccess) // the document, as a process that holds it has it
	if err != nil {
		t.Fatal(err)
	}
	// Its hash is computed beside the load; a process that held it since
	// has it (under load, the edit could come first and compare the bytes).
	d.FileHash()
	raw, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("3:%s", hashline.Hash("var x = 1")), "new_content": "var x = 2"}})
	before := readBytes(t)
	res, err := env.Edit(ctx, EditParams{TextDocument: TextDocument{URI: uri}, Edits: raw})
	read := readBytes(t) - before
	if err != nil || !res.Applied {
		t.Fatalf("edit: %v %+v", err, res.Outcome)
	}
	t.Logf("the edit read %d bytes of a %d-byte file", read, b.Len())
	if read > 256<<10 {
		t.Errorf("the edit of a %d-byte file the stat cache knows read %d bytes; want no more than the database's pages (256 KB)", b.Len(), read)
	}
	want := strings.Replace(b.String(), "var x = 1\n", "var x = 2\n", 1)
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Fatal("the file is not the edited text")
	}
	// Read again (the stat cache now knows the edited file), then another
	// program changes a line in place, keeping the size and the
	// modification time: the change time tells, and the edit is refused.
	time.Sleep(20 * time.Millisecond)
	if res, err := env.ReadDisk(ctx, ReadParams{TextDocument: TextDocument{URI: uri}, Range: &ledger.Range{Start: 1, End: 3}}); err != nil || !res.OK {
		t.Fatalf("read: %v %+v", err, res.Outcome)
	}
	fi, _ := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("9"), int64(strings.Index(want, "var x = 2")+len("var x = ")))
	f.Close()
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	raw, _ = json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("3:%s", hashline.Hash("var x = 2")), "new_content": "var x = 3"}})
	res, err = env.Edit(ctx, EditParams{TextDocument: TextDocument{URI: uri}, Edits: raw})
	if err != nil || res.Applied || res.Error != "file_changed" {
		t.Errorf("an edit of a file changed in place (size and modification time kept) was not refused as file_changed: %v %+v", err, res.Outcome)
	}
	if got, _ := os.ReadFile(path); string(got) != strings.Replace(want, "var x = 2\n", "var x = 9\n", 1) {
		t.Error("the file changed in place was written over")
	}
}
