package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// `sightline ledger` in a new process restores what the session read of
// every document it touched. A file whose stat is the one its hash and line
// hashes were saved under is not read again for it (a 6 MB file took most
// of the command's time), and the report is the one a whole read makes; a
// file changed since is read, and its changed lines are stale.
func TestLoadSessionRestoresFromTheStatCache(t *testing.T) {
	defer engine.SetRacyAge(-time.Hour)()
	root, state := t.TempDir(), t.TempDir()
	path := filepath.Join(root, "f.txt")
	write := func(s string, at time.Time) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, at, at)
	}
	write(strings.Repeat("line\n", 100)+"last\n", time.Unix(1000, 0))
	uri := string(workspace.FromPath(path))
	ctx := context.Background()
	open := func() *engine.Env {
		return engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: state})
	}
	e := open()
	if res, err := e.ReadDisk(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: uri}, Range: &ledger.Range{Start: 10, End: 20}}); err != nil || !res.OK {
		t.Fatalf("read: %v %s", err, res.Message)
	}
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	report := func(e *engine.Env) engine.LedgerResult {
		e.LoadSession(ctx, "default")
		res, err := e.LedgerReport(ctx, engine.LedgerParams{})
		if err != nil || len(res.Documents) != 1 {
			t.Fatalf("ledger: %v %+v", err, res)
		}
		return res
	}

	e = open()
	got := report(e)
	k, _ := workspace.Normalize(uri)
	// Where the platform gives no change time and file identity to key the
	// stat cache on, the document is built instead; the report is the same.
	cached := engine.StatKeyed(t)
	if _, built := e.WS.Known(k); built && cached {
		t.Errorf("the ledger of an unchanged file was restored by reading it whole")
	}
	e.Close(ctx)
	// What a process that builds the document reports.
	e = open()
	if _, err := e.WS.Get(k); err != nil {
		t.Fatal(err)
	}
	want := report(e)
	e.Close(ctx)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("restored from the stat cache:\n%+v\nfrom the file:\n%+v", got, want)
	}
	if d := got.Documents[0]; !reflect.DeepEqual(d.Read, []ledger.Range{{Start: 10, End: 20}}) || d.TotalLines != 101 {
		t.Errorf("restored ledger %+v, want lines 10-20 of 101 read", d)
	}

	// Changed since: read again, and the changed line is stale.
	write(strings.Repeat("line\n", 14)+"changed\n"+strings.Repeat("line\n", 85)+"last\n", time.Unix(2000, 0))
	for _, label := range []string{"changed", "changed, from the stat cache"} {
		e = open()
		d := report(e).Documents[0]
		if _, built := e.WS.Known(k); built && cached {
			t.Errorf("%s: the ledger was restored by building the document", label)
		}
		e.Close(ctx)
		if !reflect.DeepEqual(d.Stale, []ledger.Range{{Start: 15, End: 15}}) || !reflect.DeepEqual(d.Read, []ledger.Range{{Start: 10, End: 14}, {Start: 16, End: 20}}) {
			t.Errorf("%s: read %v, stale %v, want 10-14 and 16-20 read, line 15 stale", label, d.Read, d.Stale)
		}
	}
}
