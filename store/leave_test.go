package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// leaveHelperEnv makes the test binary a process that opens the database in
// the folder it names, writes one entry (document LEAVE_DOC, LEAVE_N lines,
// with a text of LEAVE_BYTES bytes) and exits after Leave: a CLI command's
// life, in a process of its own, as the kernel ends it.
const leaveHelperEnv = "SIGHTLINE_STORE_LEAVE_DIR"

func TestLeaveHelper(t *testing.T) {
	dir := os.Getenv(leaveHelperEnv)
	if dir == "" {
		t.Skip("the process of TestLeave*")
	}
	n, _ := strconv.Atoi(os.Getenv("LEAVE_N"))
	size, _ := strconv.Atoi(os.Getenv("LEAVE_BYTES"))
	db, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	e := entry("s", os.Getenv("LEAVE_DOC"), n)
	e.Data = append(e.Data, bytes.Repeat([]byte{' '}, size)...)
	if err := db.PutEntries(context.Background(), []Entry{e}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	db.Leave()
	os.Exit(0)
}

// leaveProcess runs TestLeaveHelper in a process of its own.
func leaveProcess(t *testing.T, dir, doc string, n, size int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaveHelper$")
	cmd.Env = append(os.Environ(), leaveHelperEnv+"="+dir, "LEAVE_DOC="+doc, "LEAVE_N="+strconv.Itoa(n), "LEAVE_BYTES="+strconv.Itoa(size))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the leaving process: %v\n%s", err, out)
	}
}

// A process that exits right after its calls leaves the database open for
// the exit to drop: its last connection does not checkpoint (two syncs of
// the log and the database, and emptying the log, at every CLI call). What
// it committed is in the write-ahead log, where the next process finds it.
func TestLeaveSkipsTheCheckpointAndLosesNothing(t *testing.T) {
	dir := t.TempDir()
	openTest(t, dir).Close() // the schema, checkpointed: an empty log
	leaveProcess(t, dir, "file:///a", 7, 0)
	fi, err := os.Stat(filepath.Join(dir, FileName+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() == 0 {
		t.Fatal("the write-ahead log is empty: the leaving process checkpointed it")
	}
	db := openTest(t, dir)
	es, err := db.DocEntries(context.Background(), "file:///a")
	if err != nil || len(es) != 1 || es[0].TotalLines != 7 {
		t.Fatalf("the left process's entry, opened after it: %+v %v", es, err)
	}
}

// With every process leaving the checkpoint to others, the log is still
// checkpointed as it grows (by the process that finds it past
// leaveLimit), so a process's open, which reads the whole log to
// rebuild its index, costs at most that many pages.
func TestLogStaysBoundedWhenProcessesLeave(t *testing.T) {
	dir := t.TempDir()
	openTest(t, dir).Close()
	const procs, size = 10, 96 << 10 // each about 25 pages of log: twice past the bound
	for i := range procs {
		leaveProcess(t, dir, fmt.Sprintf("file:///%d", i), i+1, size)
	}
	fi, err := os.Stat(filepath.Join(dir, FileName+"-wal"))
	if err != nil {
		t.Fatal(err)
	}
	// A frame is a page and its 24-byte header; one process's commit may
	// take the log past the bound before it is checkpointed.
	limit := int64(leaveLimit/4096+2*size/4096+16) * (4096 + 24)
	if fi.Size() > limit {
		t.Errorf("the write-ahead log holds %d bytes after %d processes of %d KB each, want at most %d", fi.Size(), procs, size>>10, limit)
	}
	db := openTest(t, dir)
	for i := range procs {
		es, err := db.DocEntries(context.Background(), fmt.Sprintf("file:///%d", i))
		if err != nil || len(es) != 1 || es[0].TotalLines != i+1 {
			t.Fatalf("process %d's entry: %+v %v", i, es, err)
		}
	}
}
