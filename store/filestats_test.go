package store

import (
	"context"
	"testing"
)

func TestFileStatRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	if _, ok, err := db.FileStat(ctx, "file:///a"); ok || err != nil {
		t.Fatalf("empty: %v %v", ok, err)
	}
	want := FileStat{Doc: "file:///a", Size: 10, MtimeNs: 1, Ino: 1<<63 + 5, CtimeNs: 2, FileHash: "sha256:x", TotalLines: 3, LineHashes: []byte{1, 2, 3}}
	for range 2 { // the second put replaces the first
		if err := db.PutFileStat(ctx, want); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := db.FileStat(ctx, "file:///a")
	if !ok || err != nil || !got.Same(want) || got.FileHash != want.FileHash || got.TotalLines != 3 {
		t.Fatalf("got %+v %v %v", got, ok, err)
	}
	if h, err := db.LineHashes(ctx, "sha256:x"); err != nil || string(h) != "\x01\x02\x03" {
		t.Fatalf("line hashes %q %v", h, err)
	}
}

func TestDocEntries(t *testing.T) {
	ctx := context.Background()
	db := openTest(t, t.TempDir())
	if err := db.PutEntries(ctx, []Entry{
		{Session: "s1", Doc: "a", FileHash: "h", Data: []byte("{}")},
		{Session: "s2", Doc: "a", FileHash: "h", Data: []byte("{}")},
		{Session: "s1", Doc: "b", FileHash: "h", Data: []byte("{}")},
	}); err != nil {
		t.Fatal(err)
	}
	es, err := db.DocEntries(ctx, "a")
	if err != nil || len(es) != 2 || es[0].Session != "s1" || es[1].Session != "s2" {
		t.Fatalf("DocEntries: %+v %v", es, err)
	}
	docs, err := db.SessionDocs(ctx, "s1")
	if err != nil || len(docs) != 2 || docs[0] != "a" || docs[1] != "b" {
		t.Fatalf("SessionDocs: %v %v", docs, err)
	}
}
