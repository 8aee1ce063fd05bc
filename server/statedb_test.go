package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
	"github.com/sightline-lsp/sightline/store"
)

// TestStateDatabaseDeletedWhileRunning: a state database deleted under a
// running server (SQLite would go on writing to the unlinked file, and the
// history and audit would vanish when the server stops) is noticed, said in
// answers, and recreated: what is written after is kept.
func TestStateDatabaseDeletedWhileRunning(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(t.TempDir(), "state")
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\n"), 0o644)
	e := lsptest.Start(t, lsptest.Options{Root: root, Server: server.Options{StateDir: state, FlushEvery: 50 * time.Millisecond}})
	u := fileURI(root, "a.txt")
	if res := read(t, e, u, nil, nil); !res.OK || len(res.Warnings) > 0 {
		t.Fatalf("read: %+v", res.Outcome)
	}
	db := filepath.Join(state, store.FileName)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(db + suffix)
	}
	var warned []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res := read(t, e, u, nil, nil); len(res.Warnings) > 0 {
			warned = res.Warnings
			break
		}
	}
	if !strings.Contains(strings.Join(warned, " "), "deleted") {
		t.Fatalf("no answer says the database was deleted: %q", warned)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("the database was not recreated: %v", err)
	}
	// A write after is kept in the new database.
	var w engine.WriteResult
	if err := e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": u}, "mode": "append", "content": "three\n"}, &w); err != nil || !w.OK {
		t.Fatalf("write: %v %+v", err, w.Outcome)
	}
	var h engine.HistoryResult
	if err := e.Call("sightline/history", map[string]any{"textDocument": map[string]string{"uri": u}}, &h); err != nil || len(h.Versions) == 0 {
		t.Fatalf("history after the database was recreated: %v %+v", err, h)
	}
	if code := e.Shutdown(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	sdb, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	entries, err := sdb.AuditWhere(t.Context(), store.AuditFilter{})
	if err != nil || len(entries) == 0 {
		t.Fatalf("the new database holds no audit rows after the server stopped: %v %d", err, len(entries))
	}
}
