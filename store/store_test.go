package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTest(t testing.TB, dir string) *DB {
	t.Helper()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func entry(session, doc string, n int) Entry {
	return Entry{
		Session:    session,
		Doc:        doc,
		FileHash:   fmt.Sprintf("sha256:%064d", n),
		TotalLines: n,
		Data:       []byte(fmt.Sprintf(`{"read":[{"start":1,"end":%d}]}`, n)),
	}
}

func TestDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root := filepath.Join(t.TempDir(), "my project")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != filepath.Join(state, "sightline") {
		t.Errorf("Dir = %s, not under %s/sightline", dir, state)
	}
	base := filepath.Base(dir)
	if !strings.HasPrefix(base, "my_project-") || len(base) != len("my_project-")+12 {
		t.Errorf("folder name %q, want my_project-<12 hex>", base)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		t.Fatalf("state folder: %v, %v", fi, err)
	}
	// On Windows the folder is the user's by the ACL of the one it is in
	// (%LOCALAPPDATA%); the mode bits say nothing there.
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("state folder mode %v, want 0700", fi.Mode())
	}

	// Stable, and the same through a relative path or a symlink (where the
	// system makes one: Windows needs a privilege, Wine makes none).
	again, _ := Dir(root)
	viaLink := dir
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err == nil {
		if _, err := os.Lstat(link); err == nil {
			viaLink, _ = Dir(link)
		}
	} else if runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(root))
	viaRel, _ := Dir("my project")
	if again != dir || viaLink != dir || viaRel != dir {
		t.Errorf("Dir not stable: %s, %s, %s, %s", dir, again, viaLink, viaRel)
	}

	// Another workspace of the same name gets another folder.
	other := filepath.Join(t.TempDir(), "my project")
	os.Mkdir(other, 0o755)
	if d, _ := Dir(other); d == dir {
		t.Errorf("two workspaces share %s", d)
	}

	// Without XDG_STATE_HOME (or with a relative one): ~/.local/state, on
	// Windows %LOCALAPPDATA%.
	home, local := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("LOCALAPPDATA", local)
	t.Setenv("XDG_STATE_HOME", "relative/ignored")
	want := filepath.Join(home, ".local", "state")
	if runtime.GOOS == "windows" {
		want = local
	}
	d, err := Dir(root)
	if err != nil || !strings.HasPrefix(d, filepath.Join(want, "sightline")+string(filepath.Separator)) {
		t.Errorf("default state home: %s, %v", d, err)
	}
}

// The state folder's default: on Windows the local application data folder
// (%LOCALAPPDATA%, which does not roam), elsewhere (macOS included)
// ~/.local/state; an absolute $XDG_STATE_HOME wins everywhere.
func TestStateBaseDefault(t *testing.T) {
	home, local := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("LOCALAPPDATA", local)
	t.Setenv("XDG_STATE_HOME", "")
	want := filepath.Join(home, ".local", "state")
	if runtime.GOOS == "windows" {
		want = local
	}
	if got, err := stateBase(); err != nil || got != want {
		t.Errorf("stateBase() = %s, %v; want %s", got, err, want)
	}
	if runtime.GOOS == "windows" {
		t.Setenv("LOCALAPPDATA", "")
		if got, err := stateBase(); err != nil || got != filepath.Join(home, "AppData", "Local") {
			t.Errorf("without LOCALAPPDATA: %s, %v", got, err)
		}
	}
	xdg := t.TempDir()
	t.Setenv("XDG_STATE_HOME", xdg)
	if got, err := stateBase(); err != nil || got != xdg {
		t.Errorf("with XDG_STATE_HOME: %s, %v; want %s", got, err, xdg)
	}
}

func TestFolderName(t *testing.T) {
	for in, want := range map[string]string{
		"sightline": "sightline", "my project": "my_project", "/": "_", ".": "root", "..": "root",
		"": "root", "été": "_t_", ".hidden": "hidden", strings.Repeat("a", 100): strings.Repeat("a", 40),
	} {
		if got := folderName(in); got != want {
			t.Errorf("folderName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenSettings(t *testing.T) {
	// Created; characters that mean something in a URI survive ('?' cannot
	// be in a Windows name).
	name := "state?#%"
	if runtime.GOOS == "windows" {
		name = "state#%"
	}
	dir := filepath.Join(t.TempDir(), "new", name)
	db := openTest(t, dir)
	if db.Path() != filepath.Join(dir, FileName) {
		t.Errorf("Path = %s", db.Path())
	}
	if _, err := os.Stat(db.Path()); err != nil {
		t.Fatalf("database file: %v", err)
	}
	ctx := context.Background()
	// Pin two connections at once so the settings are checked on a pooled
	// connection too, not only the first.
	c1, err := db.pool().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := db.pool().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for _, pr := range []struct {
		pragma, want string
	}{
		{"journal_mode", "wal"},
		{"busy_timeout", "1500"},
		{"foreign_keys", "1"},
		{"synchronous", "1"}, // NORMAL
		{"user_version", fmt.Sprint(len(migrations()))},
	} {
		for i, c := range []*sql.Conn{c1, c2} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+pr.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != pr.want {
				t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, pr.pragma, got, pr.want)
			}
		}
	}
}

func TestEntriesRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	at := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	in := []Entry{entry("s1", "b.go", 2), entry("s1", "a.go", 1), entry("s2", "a.go", 3)}
	in[0].UpdatedAt = at
	in[2].Data = nil // stored as empty, not NULL
	in[1].LineHashes = []byte{1, 2, 3, 0, 0, 0}
	before := time.Now().Truncate(time.Millisecond)
	if err := db.PutEntries(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := db.PutEntries(ctx, nil); err != nil {
		t.Fatal(err)
	}

	got, err := db.Entries(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Doc != "a.go" || got[1].Doc != "b.go" {
		t.Fatalf("Entries(s1) = %+v", got)
	}
	same := func(a, b Entry) bool {
		return a.Session == b.Session && a.Doc == b.Doc && a.FileHash == b.FileHash &&
			a.TotalLines == b.TotalLines && string(a.Data) == string(b.Data) &&
			string(a.LineHashes) == string(b.LineHashes)
	}
	if !same(got[0], in[1]) || !same(got[1], in[0]) {
		t.Errorf("Entries(s1) = %+v, want %+v", got, in[:2])
	}
	if !got[1].UpdatedAt.Equal(at) {
		t.Errorf("UpdatedAt = %v, want %v", got[1].UpdatedAt, at)
	}
	if got[0].UpdatedAt.Before(before) || got[0].UpdatedAt.After(time.Now()) {
		t.Errorf("zero UpdatedAt set to %v, want about now", got[0].UpdatedAt)
	}

	all, err := db.AllEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[2].Session != "s2" || len(all[2].Data) != 0 {
		t.Errorf("AllEntries = %+v", all)
	}
	if es, err := db.Entries(ctx, "nobody"); err != nil || len(es) != 0 {
		t.Errorf("Entries(nobody) = %v, %v", es, err)
	}
}

func TestEntriesUpsertAndDelete(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.PutEntries(ctx, []Entry{entry("s1", "a.go", 1), entry("s1", "b.go", 1), entry("s2", "a.go", 1), entry("s2", "c.go", 1)}))
	must(db.PutEntries(ctx, []Entry{entry("s1", "a.go", 7)}))
	es, _ := db.Entries(ctx, "s1")
	if len(es) != 2 || es[0].TotalLines != 7 || string(es[0].Data) != string(entry("", "", 7).Data) {
		t.Fatalf("after upsert: %+v", es)
	}
	// Several versions of one key in one call: the last wins.
	must(db.PutEntries(ctx, []Entry{entry("s1", "b.go", 8), entry("s1", "b.go", 9)}))
	if es, _ := db.Entries(ctx, "s1"); es[1].TotalLines != 9 {
		t.Errorf("last of a batch should win: %+v", es[1])
	}

	must(db.DeleteEntry(ctx, "s1", "b.go"))
	must(db.DeleteDoc(ctx, "a.go"))
	all, _ := db.AllEntries(ctx)
	if len(all) != 1 || all[0].Session != "s2" || all[0].Doc != "c.go" {
		t.Fatalf("after deletes: %+v", all)
	}
	must(db.DeleteSession(ctx, "s2"))
	if all, _ := db.AllEntries(ctx); len(all) != 0 {
		t.Errorf("after DeleteSession: %+v", all)
	}
}

func TestPutEntriesAllOrNone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	db := openTest(t, t.TempDir())
	cancel()
	if err := db.PutEntries(ctx, []Entry{entry("s", "a", 1)}); err == nil {
		t.Fatal("PutEntries with a cancelled context succeeded")
	}
	if all, _ := db.AllEntries(context.Background()); len(all) != 0 {
		t.Errorf("a failed PutEntries wrote %+v", all)
	}
}

func TestMigrationIdempotent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutEntries(ctx, []Entry{entry("s", "a", 1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendAudit(ctx, AuditEntry{Method: "sightline/read"}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openTest(t, dir)
	var version int
	db.pool().QueryRow("PRAGMA user_version").Scan(&version)
	if version != len(migrations()) {
		t.Errorf("user_version = %d", version)
	}
	if all, _ := db.AllEntries(ctx); len(all) != 1 {
		t.Errorf("entries lost on reopen: %+v", all)
	}
	if a, _ := db.Audit(ctx, 0); len(a) != 1 {
		t.Errorf("audit lost on reopen: %+v", a)
	}

	// Many processes opening a new database at once: one creates the schema.
	dir2 := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			db, err := Open(dir2)
			if err == nil {
				err = db.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestUpgradeKeepsEntries: a database of schema 2 (before line hashes) opens,
// keeps its entries, and gives them no line hashes.
func TestUpgradeKeepsEntries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openTest(t, dir)
	// Rebuild the database as version 2 wrote it.
	for _, q := range []string{"DROP TABLE ledger_entries", "DROP TABLE audit", "DROP TABLE file_stats", "DROP TABLE line_hashes", "DROP TABLE approvals", "DROP TABLE history_chain", "DROP TABLE history_data", "DROP TABLE history_versions", "DROP TABLE history_blobs", "DROP TABLE history_total", "DROP TABLE write_journal", "DROP TABLE ledger_clock", "DROP TABLE symbol_sets", "PRAGMA user_version = 0"} {
		if _, err := db.pool().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range migrations()[:2] {
		if _, err := db.pool().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.pool().Exec(`PRAGMA user_version = 2;
		INSERT INTO ledger_entries (session, doc, file_hash, total_lines, data, updated_at)
		VALUES ('s', 'a.go', 'sha256:00', 3, '{}', 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openTest(t, dir)
	all, err := db.AllEntries(ctx)
	if err != nil || len(all) != 1 || all[0].Doc != "a.go" || string(all[0].Data) != "{}" || len(all[0].LineHashes) != 0 {
		t.Fatalf("entries after the upgrade: %+v, %v", all, err)
	}
}

// TestUpgradeMovesLineHashes: schema 4 keeps line hashes once per text; the
// hashes entries of schema 3 held come along.
func TestUpgradeMovesLineHashes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openTest(t, dir)
	for _, q := range []string{"DROP TABLE ledger_entries", "DROP TABLE audit", "DROP TABLE file_stats", "DROP TABLE line_hashes", "DROP TABLE approvals", "DROP TABLE history_chain", "DROP TABLE history_data", "DROP TABLE history_versions", "DROP TABLE history_blobs", "DROP TABLE history_total", "DROP TABLE write_journal", "DROP TABLE ledger_clock", "DROP TABLE symbol_sets", "PRAGMA user_version = 0"} {
		if _, err := db.pool().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range migrations()[:3] {
		if _, err := db.pool().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.pool().Exec(`PRAGMA user_version = 3;
		INSERT INTO ledger_entries (session, doc, file_hash, total_lines, data, updated_at, line_hashes)
		VALUES ('s', 'a.go', 'sha256:00', 1, '{}', 1, x'010203'), ('t', 'a.go', 'sha256:00', 1, '{}', 1, x'010203')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = openTest(t, dir)
	all, err := db.AllEntries(ctx)
	if err != nil || len(all) != 2 || string(all[0].LineHashes) != "\x01\x02\x03" || string(all[1].LineHashes) != "\x01\x02\x03" {
		t.Fatalf("entries after the upgrade: %+v, %v", all, err)
	}
}

func TestOpenNewerSchema(t *testing.T) {
	dir := t.TempDir()
	db := openTest(t, dir)
	if _, err := db.pool().Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") {
		t.Fatalf("Open of a newer schema: %v", err)
	}
}

func TestOpenFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := Open(filepath.Join(file, "sub")); err == nil || !strings.HasPrefix(err.Error(), "store: open ") {
		t.Errorf("Open under a file: %v", err)
	}
}

// TestTwoProcesses stands in for two editor windows and the CLI: separate
// *DB handles (separate pools, as separate processes have) on one file,
// writing at once. WAL and the busy timeout must make them wait, not fail.
func TestTwoProcesses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbs := []*DB{openTest(t, dir), openTest(t, dir), openTest(t, dir)}
	const rounds, batch = 30, 20
	var wg sync.WaitGroup
	errs := make(chan error, len(dbs)*rounds*3)
	for p, db := range dbs {
		wg.Go(func() {
			for r := range rounds {
				es := make([]Entry, batch)
				for i := range es {
					es[i] = entry(fmt.Sprintf("p%d", p), fmt.Sprintf("doc%d", i), r)
				}
				errs <- db.PutEntries(ctx, es)
				_, err := db.AppendAudit(ctx, AuditEntry{Session: fmt.Sprintf("p%d", p), Method: "edit", Outcome: "ok"})
				errs <- err
				_, err = db.AllEntries(ctx) // readers beside the writers
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all, err := dbs[0].AllEntries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(dbs)*batch {
		t.Fatalf("%d entries, want %d", len(all), len(dbs)*batch)
	}
	for _, e := range all {
		if e.TotalLines != rounds-1 {
			t.Errorf("%s/%s: last round %d, want %d", e.Session, e.Doc, e.TotalLines, rounds-1)
		}
	}
	if a, _ := dbs[1].Audit(ctx, 0); len(a) != len(dbs)*rounds {
		t.Errorf("%d audit entries, want %d", len(a), len(dbs)*rounds)
	}
}

func TestAudit(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	if a, err := db.Audit(ctx, 10); err != nil || len(a) != 0 {
		t.Fatalf("empty audit: %v, %v", a, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := AuditEntry{Time: at, Session: "s", Agent: "coder", Method: "sightline/edit", Path: "a.go",
		Outcome: "refused", Error: "stale_ref", BeforeHash: "sha256:aa", AfterHash: "sha256:bb", ArgsDigest: "sha256:cc"}
	for _, a := range []AuditEntry{first, {Method: "m2"}, {Method: "m3"}} {
		if _, err := db.AppendAudit(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Audit(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Method != "m3" || got[1].Method != "m2" {
		t.Errorf("Audit(2) = %+v, want m3, m2", got)
	}
	if got[0].Time.IsZero() {
		t.Error("zero Time not set")
	}
	all, _ := db.Audit(ctx, 0)
	if len(all) != 3 {
		t.Fatalf("Audit(0) = %d entries", len(all))
	}
	last := all[2]
	if !last.Time.Equal(at) {
		t.Errorf("Time = %v, want %v", last.Time, at)
	}
	last.Time = at
	if last != first {
		t.Errorf("round trip: %+v, want %+v", last, first)
	}
}

func TestErrorsWrap(t *testing.T) {
	db := openTest(t, t.TempDir())
	db.Close()
	err := db.PutEntries(context.Background(), []Entry{entry("s", "d", 1)})
	if err == nil || !strings.HasPrefix(err.Error(), "store: put 1 entries: ") || !errors.Is(err, sql.ErrConnDone) && !strings.Contains(err.Error(), "closed") {
		t.Errorf("error on a closed database: %v", err)
	}
}

// A corrupt database is moved aside and recreated, keeping the entries that
// can still be read; a locked one is reported within the busy timeout.
func TestRecoverAndLocked(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutEntries(t.Context(), []Entry{{Session: "s", Doc: "file:///a", FileHash: "h", TotalLines: 1, Data: []byte("{}")}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	fresh, aside, kept, err := Recover(dir)
	if err != nil || kept != 1 || !strings.Contains(aside, ".corrupt-") {
		t.Fatalf("recover: %v %s %d", err, aside, kept)
	}
	fresh.Close()

	garbage := t.TempDir()
	os.WriteFile(filepath.Join(garbage, FileName), []byte(strings.Repeat("garbage!", 1000)), 0o600)
	if _, err := Open(garbage); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("open of garbage: %v", err)
	}

	db, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.pool().Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(t.Context(), "ROLLBACK")
	start := time.Now()
	if _, err := Open(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("open of a locked database: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("waited %v for a lock", d)
	}
}

// TestConcurrentFirstOpens: processes (here goroutines, each with its own
// connections and lock file description) opening a new database at once all
// get it: one builds the schema, the others wait for it instead of failing
// as locked.
func TestConcurrentFirstOpens(t *testing.T) {
	dir := t.TempDir()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			db, err := Open(dir)
			if err == nil {
				db.Close()
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent first open: %v", err)
		}
	}
}

// TestOpenWaitsForTheWALSwitch: a new database's journal is switched to
// write-ahead logging once, a write that needs the file's write lock. While
// another connection holds that lock (another process switching it at the
// same moment), Open waits for it, as the busy timeout promises, instead of
// failing at once: SQLite answers such a switch "locked" without calling
// the busy handler, since the switch upgrades a read to a write.
func TestOpenWaitsForTheWALSwitch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Another process's connection, waiting for locks as sightline's do:
	// its commit waits out the reads of the one opening.
	other, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(1500)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	const held = 300 * time.Millisecond
	released := make(chan error, 1)
	go func() {
		time.Sleep(held)
		_, err := conn.ExecContext(context.Background(), "COMMIT")
		released <- err
	}()
	start := time.Now()
	db, err := Open(dir)
	if err != nil {
		t.Fatalf("open while another connection held the new database's write lock for %v: %v (after %v; the other's commit: %v)", held, err, time.Since(start), <-released)
	}
	defer db.Close()
	if err := <-released; err != nil {
		t.Fatalf("the other connection's commit: %v", err)
	}
	var mode string
	if err := db.pool().QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q (%v), want wal", mode, err)
	}
}
