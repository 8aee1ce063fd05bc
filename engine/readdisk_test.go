package engine_test

import (
	"context"
	"fmt"
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

// TestReadDiskIsRead: the streamed read answers exactly what Read answers,
// shows and records, read after read in fresh processes (the second read of
// an unchanged file from the stat cache), and after the file changes.
func TestReadDiskIsRead(t *testing.T) {
	if !engine.StatKeyed(t) {
		t.Skip("ReadDisk is Read here: the platform gives no change time and file identity to key its stat cache on")
	}
	defer engine.SetRacyAge(-time.Hour)()
	var long strings.Builder
	for i := range 30000 { // > the 256 KB buffer: lines and "\r\n" across refills
		fmt.Fprintf(&long, "line %d %s\r\n", i, strings.Repeat("x", i%17))
	}
	files := map[string]string{
		"lf":      "a\nb\nc\n",
		"crlf":    "a\r\nb\r\nc",
		"cr":      "a\rb\r\nc\r",
		"bom":     "\ufeffx\ny\n",
		"empty":   "",
		"nonl":    "x",
		"utf8":    "é\n世界\n",
		"binary":  "a\x00b\n",
		"invalid": "\xff\n",
		"long":    long.String(),
		"huge":    strings.Repeat("y", 600<<10) + "\nz\n",
	}
	least := 20          // of each way of answering
	if testing.Short() { // CRLF, Windows' common case; the rest in the long run
		files = map[string]string{"crlf": files["crlf"]}
		least = 8
	}
	var hits, scans int
	defer engine.CountDiskReads(&hits, &scans)()
	r := func(a, b int) *ledger.Range { return &ledger.Range{Start: a, End: b} }
	ranges := []*ledger.Range{nil, r(1, 1), r(2, 3), r(2, 1<<30), r(29990, 30001), r(100000, 100001)}
	for name, text := range files {
		for ri, rng := range ranges {
			for _, budget := range []int{0, 40} {
				if budget > 0 && ri > 1 {
					continue // cut reads all go to Read; two cases show it
				}
				t.Run(fmt.Sprintf("%s/%d/%d", name, ri, budget), func(t *testing.T) {
					root := t.TempDir()
					path := filepath.Join(root, "f.txt")
					write := func(s string, at time.Time) {
						if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
							t.Fatal(err)
						}
						os.Chtimes(path, at, at) // a distinct stat even within one clock tick
					}
					write(text, time.Unix(1000, 0))
					stateA, stateB := t.TempDir(), t.TempDir()
					p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(path))}, Range: rng}
					if budget > 0 {
						p.Budget = &struct {
							Chars int `json:"chars"`
						}{budget}
					}
					step := func(label string) {
						ctx := context.Background()
						a := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: stateA})
						b := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: stateB})
						want, werr := a.Read(ctx, p)
						got, gerr := b.ReadDisk(ctx, p)
						if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
							t.Fatalf("%s: ReadDisk\n%+v (%v)\nRead\n%+v (%v)", label, got, gerr, want, werr)
						}
						if err := a.Close(ctx); err != nil {
							t.Fatal(err)
						}
						if err := b.Close(ctx); err != nil {
							t.Fatal(err)
						}
					}
					step("first")
					step("again") // from the stat cache
					write(strings.Replace(text, "a", "b", 1)+"tail\n", time.Unix(2000, 0))
					step("changed")
					step("changed again")
				})
			}
		}
	}
	// Each stream answered both ways: the path is taken, not always left to Read.
	if hits < least || scans < least {
		t.Errorf("ReadDisk answered %d reads from the stat cache and %d by a whole scan", hits, scans)
	}
	t.Logf("ReadDisk answered %d from the stat cache, %d by a whole scan", hits, scans)
}
