package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

func textOf(b []byte) Text {
	return Text{Hash: hashOf(b), Size: len(b), Bytes: func() []byte { return b }}
}

// editSome replaces a few random byte ranges of t and returns the new text
// with the splices that make it.
func editSome(r *rand.Rand, t []byte) ([]byte, []Splice) {
	var ss []Splice
	var out []byte
	end := 0
	for off := r.IntN(200); off < len(t); off += 1 + r.IntN(len(t)/3+1) {
		del := min(r.IntN(20), len(t)-off)
		ins := []byte(fmt.Sprintf("<%d>", r.IntN(1000)))
		ss = append(ss, Splice{Off: off, Del: del, Ins: ins})
		out = append(append(out, t[end:off]...), ins...)
		end = off + del
		off += del
	}
	return append(out, t[end:]...), ss
}

// TestHistoryDeltas: a run of small edits of a large text is stored as
// deltas (chains no longer than maxDepth), every version reads back
// exactly, and the stored bytes grow with the edits, not the text.
func TestHistoryDeltas(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	text := bytes.Repeat([]byte("func f() { return 1 }\n"), 20000) // 440 KB
	var texts [][]byte
	texts = append(texts, text)
	for i := range 70 {
		next, ss := editSome(r, text)
		before, after := textOf(text), textOf(next)
		w := Write{Path: "a.go", Before: &before, After: after, Delta: func() []Splice { return ss }, Version: Version{Method: fmt.Sprint(i)}}
		if _, err := db.Record(ctx, w); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, next)
		text = next
	}
	vs, err := db.Versions(ctx, "a.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d versions, want %d", len(vs), len(texts))
	}
	for i, v := range vs {
		got, err := db.VersionText(ctx, "a.go", v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, texts[i]) {
			t.Fatalf("version %d reads back wrong", i)
		}
		if v.Size != int64(len(texts[i])) {
			t.Errorf("version %d size %d, want %d", i, v.Size, len(texts[i]))
		}
	}
	var whole, maxD int
	var stored int64
	db.pool().QueryRow(`SELECT count(*) FROM history_blobs WHERE hash NOT IN (SELECT hash FROM history_chain)`).Scan(&whole)
	db.pool().QueryRow(`SELECT max(depth) FROM history_chain`).Scan(&maxD)
	db.pool().QueryRow(`SELECT sum(stored) FROM history_blobs`).Scan(&stored)
	if maxD > maxDepth || whole != 3 { // 71 texts: whole at 0, 33, 66
		t.Errorf("whole texts %d, deepest chain %d", whole, maxD)
	}
	t.Logf("71 versions of a 440 KB text: %d bytes stored, %d whole", stored, whole)
}

// TestHistoryDeltaThatDoesNotFit: splices that do not make the text after
// (a caller's mistake) are not stored as a delta; the whole text is.
func TestHistoryDeltaThatDoesNotFit(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	a, b := []byte("one\ntwo\n"), []byte("one\nTWO!\n")
	before, after := textOf(a), textOf(b)
	bad := func() []Splice { return []Splice{{Off: 4, Del: 3, Ins: []byte("TWO")}} } // one byte short
	if _, err := db.Record(ctx, Write{Path: "x", Before: &before, After: after, Delta: bad}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.BlobText(ctx, after.Hash)
	if err != nil || !ok || !bytes.Equal(got, b) {
		t.Fatalf("BlobText = %q %v %v", got, ok, err)
	}
}

// TestPruneHistoryKeepsChainsReadable: pruning drops the oldest versions,
// never a text a kept delta needs, and leaves no text nothing uses.
func TestPruneHistoryKeepsChainsReadable(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(3, 4))
	text := bytes.Repeat([]byte("x := y + z // some code here\n"), 5000)
	for range 100 {
		next, ss := editSome(r, text)
		before, after := textOf(text), textOf(next)
		if _, err := db.Record(ctx, Write{Path: "p", Before: &before, After: after, Delta: func() []Splice { return ss }}); err != nil {
			t.Fatal(err)
		}
		text = next
	}
	var total int64
	db.pool().QueryRow(`SELECT sum(stored) FROM history_blobs`).Scan(&total)
	dropped, err := db.PruneHistory(ctx, total/2)
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := db.Versions(ctx, "p")
	if dropped == 0 || len(vs) == 0 {
		t.Fatalf("dropped %d, kept %d", dropped, len(vs))
	}
	for _, v := range vs {
		got, err := db.VersionText(ctx, "p", v.ID)
		if err != nil || hashOf(got) != v.Hash {
			t.Fatalf("version %d unreadable after pruning: %v", v.ID, err)
		}
	}
	var orphans int
	db.pool().QueryRow(`SELECT count(*) FROM history_blobs WHERE hash NOT IN (SELECT hash FROM history_versions)
		AND hash NOT IN (SELECT base FROM history_chain)`).Scan(&orphans)
	var after int64
	db.pool().QueryRow(`SELECT sum(stored) FROM history_blobs`).Scan(&after)
	if orphans != 0 || after > total/2 {
		t.Errorf("after pruning: %d orphan texts, %d bytes (limit %d)", orphans, after, total/2)
	}
}

// TestUpgradeKeepsHistory: texts stored whole by schema 5 read back after
// the upgrade that lets texts be deltas.
func TestUpgradeKeepsHistory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP TABLE history_chain", "DROP TABLE history_data",
		"DROP TRIGGER history_total_insert", "DROP TRIGGER history_total_delete", "DROP TRIGGER history_total_update",
		"DROP TABLE history_total", "DROP TABLE write_journal", "DROP TRIGGER ledger_entries_seq_insert", "DROP TRIGGER ledger_entries_seq_update", "DROP TABLE ledger_clock", "DROP TABLE symbol_sets",
		"DROP INDEX ledger_entries_seq", "ALTER TABLE ledger_entries DROP COLUMN seq", "PRAGMA user_version = 5"} {
		if _, err := db.pool().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	text := []byte("old\ntext\n")
	packed, _ := Compress(text)
	if _, err := db.pool().Exec(`INSERT INTO history_blobs (hash, size, stored, data) VALUES (?, ?, ?, ?)`, hashOf(text), len(text), len(packed), packed); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool().Exec(`INSERT INTO history_versions (time, path, hash, session, agent, method) VALUES (1, 'f', ?, '', '', 'found')`, hashOf(text)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openTest(t, dir)
	var total int
	if err := db.pool().QueryRow(`SELECT stored FROM history_total`).Scan(&total); err != nil || total != len(packed) {
		t.Fatalf("history total after the upgrade: %d %v, want %d", total, err, len(packed))
	}
	vs, err := db.Versions(ctx, "f")
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions %v %v", vs, err)
	}
	got, err := db.VersionText(ctx, "f", vs[0].ID)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("VersionText = %q %v", got, err)
	}
	next := []byte("old\ntext\nmore\n")
	before, after := textOf(text), textOf(next)
	if _, err := db.Record(ctx, Write{Path: "f", Before: &before, After: after, Delta: func() []Splice { return []Splice{{Off: 9, Ins: []byte("more\n")}} }}); err != nil {
		t.Fatal(err)
	}
	if got, _, err := db.BlobText(ctx, after.Hash); err != nil || !bytes.Equal(got, next) {
		t.Fatalf("delta on an upgraded text: %q %v", got, err)
	}
}

// The stored bytes of the history are kept as a running total, so the
// retention check reads one row instead of every text's size; it follows
// every insert and delete, pruning included.
func TestHistoryTotalFollowsBlobs(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(5, 6))
	text := bytes.Repeat([]byte("a line of code, repeated\n"), 3000)
	check := func(when string) {
		t.Helper()
		var sum, total int64
		db.pool().QueryRow(`SELECT coalesce(sum(stored), 0) FROM history_blobs`).Scan(&sum)
		if err := db.pool().QueryRow(`SELECT stored FROM history_total`).Scan(&total); err != nil || total != sum {
			t.Fatalf("%s: total %d (%v), the texts hold %d", when, total, err, sum)
		}
	}
	check("empty")
	for i := range 80 {
		next, ss := editSome(r, text)
		before, after := textOf(text), textOf(next)
		if _, err := db.Record(ctx, Write{Path: fmt.Sprint("p", i%3), Before: &before, After: after, Delta: func() []Splice { return ss }}); err != nil {
			t.Fatal(err)
		}
		text = next
	}
	check("after 80 writes")
	var sum int64
	db.pool().QueryRow(`SELECT sum(stored) FROM history_blobs`).Scan(&sum)
	if _, err := db.PruneHistory(ctx, sum/3); err != nil {
		t.Fatal(err)
	}
	check("after pruning")
}

// Audit rotation keeps the newest entries and drops the old ones, by count
// and by age.
func TestPruneAudit(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	now := time.Now()
	for i := range 300 {
		a := AuditEntry{Time: now.Add(time.Duration(i-300) * time.Hour), Method: "m", Path: fmt.Sprint(i), Outcome: "ok"}
		if _, err := db.AppendAudit(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	n, err := db.PruneAudit(ctx, 200, 0)
	if err != nil || n != 100 {
		t.Fatalf("by count: dropped %d, %v", n, err)
	}
	left, _ := db.Audit(ctx, 0)
	if len(left) != 200 || left[0].Path != "299" || left[len(left)-1].Path != "100" {
		t.Fatalf("kept %d, newest %s, oldest %s", len(left), left[0].Path, left[len(left)-1].Path)
	}
	n, err = db.PruneAudit(ctx, 0, 50*time.Hour+time.Minute) // entries 250..299 are younger
	if err != nil || n != 150 {
		t.Fatalf("by age: dropped %d, %v", n, err)
	}
}

// BenchmarkRetentionCheck is what every process pays at its start when
// nothing is due: the audit's bounds and the history's budget checked
// against a log of 200,000 calls and a history of 20,000 texts.
func BenchmarkRetentionCheck(b *testing.B) {
	ctx := context.Background()
	db := openTest(b, b.TempDir())
	now := millis(time.Now())
	tx, _ := db.pool().Begin()
	for i := range 200_000 {
		tx.Exec(`INSERT INTO audit (time, session, agent, method, path, outcome, error, before_hash, after_hash, args_digest)
			VALUES (?, 's', '', 'sightline/read', 'f.go', 'ok', '', '', '', '')`, now-int64(200_000-i))
	}
	for i := range 20_000 {
		tx.Exec(`INSERT INTO history_blobs (hash, size, stored, data) VALUES (?, 100, 40, x'')`, fmt.Sprint("sha256:", i))
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := db.Retain(ctx, Retention{AuditEntries: 1_000_000, AuditAge: 90 * 24 * time.Hour, HistoryBytes: 256 << 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// A large text is compressed in parts side by side; it reads back whole.
func TestCompressLargeInParts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	text := make([]byte, 3*compressPart+12345)
	for i := range text {
		text[i] = "abcdefgh\n"[r.IntN(9)]
	}
	packed, err := Compress(text)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decompress(packed)
	if err != nil || !bytes.Equal(got, text) {
		t.Fatalf("round trip: %d bytes of %d, %v", len(got), len(text), err)
	}
}
