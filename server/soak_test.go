package server_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

var soakFor = flag.Duration("soak", 0, "how long TestSoak runs (default 20s; also SIGHTLINE_SOAK=10m)")

// TestSoak drives one server with a random mix of what happens in a session —
// agent reads and edits, the user typing (incremental and full-text changes),
// session resets, the editor refusing edits — and checks throughout that the
// server's text is the editor's, that no edit lands anywhere but where its ref
// pointed (or changes anything when refused), and at the end that no goroutine
// is left behind.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	d := 20 * time.Second
	if *soakFor > 0 {
		d = *soakFor
	} else if v := os.Getenv("SIGHTLINE_SOAK"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("SIGHTLINE_SOAK=%q: %v", v, err)
		}
	}
	baseline := runtime.NumGoroutine()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %v", seed, d)
	rng := rand.New(rand.NewPCG(seed, 7))

	var text strings.Builder
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&text, "line %d\n", i%40) // duplicates on purpose
	}
	e, root := start(t, map[string]string{"a.txt": text.String()}, lsptest.Options{})
	u := fileURI(root, "a.txt")
	e.Open(u, "plaintext", text.String())
	var refuse atomic.Bool
	e.ApplyEdit = func(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		if refuse.Load() {
			r := "the user said no"
			return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &r}
		}
		return e.DefaultApplyEdit(p)
	}

	same := func(op string) {
		t.Helper()
		res := read(t, e, u, nil, map[string]any{"session": "checker", "annotate": false, "budget": map[string]int{"chars": 1 << 20}})
		want := e.Buffer(u)
		wl := splitLSP(want)
		if strings.HasSuffix(want, "\n") || strings.HasSuffix(want, "\r") {
			wl = wl[:len(wl)-1]
		}
		got := splitLSP(res.Content)
		got = got[:len(got)-1]
		if want == "" {
			wl, got = nil, nil
		}
		if strings.Join(got, "\n") != strings.Join(wl, "\n") {
			t.Fatalf("after %s the server's text differs from the editor's:\nserver %q\neditor %q", op, res.Content, want)
		}
	}
	counts := map[string]int{}
	deadline := time.Now().Add(d)
	for n := 0; time.Now().Before(deadline); n++ {
		buf := e.Buffer(u)
		ls := splitLSP(buf)
		nl := len(ls) - 1 // the buffer ends with a newline
		op := rng.IntN(10)
		switch {
		case op < 3: // the agent reads a range
			if nl > 0 {
				s := 1 + rng.IntN(nl)
				read(t, e, u, &ledger.Range{Start: s, End: min(nl, s+rng.IntN(30))}, nil)
			}
			counts["read"]++
		case op < 6 && nl > 0: // the agent edits a line it names by a ref
			line := 1 + rng.IntN(nl)
			ref := fmt.Sprintf("%d:%s", line, hashOf(ls[line-1]))
			mark := fmt.Sprintf("edit %d", n)
			refuse.Store(rng.IntN(5) == 0)
			before := e.Buffer(u)
			res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref, "new_content": mark}}, nil)
			after := e.Buffer(u)
			b, a := splitLSP(before), splitLSP(after)
			if res.OK && res.Applied {
				diff := -1
				if len(a) != len(b) {
					t.Fatalf("edit %q changed the line count: %d -> %d", ref, len(b), len(a))
				}
				for i := range a {
					if a[i] != b[i] {
						if diff >= 0 {
							t.Fatalf("edit %q changed lines %d and %d", ref, diff+1, i+1)
						}
						diff = i
					}
				}
				if diff < 0 || a[diff] != mark || hashOf(b[diff]) != hashOf(ls[line-1]) {
					t.Fatalf("edit %q landed on line %d (%q -> %q)", ref, diff+1, b[max(diff, 0)], a[max(diff, 0)])
				}
				counts["edit applied"]++
			} else {
				if before != after {
					t.Fatalf("refused edit (%s: %s) changed the buffer", res.Error, res.Message)
				}
				counts["edit refused: "+string(res.Error)]++
			}
			refuse.Store(false)
		case op < 8 && nl > 0: // the user types: an incremental change
			line := rng.IntN(nl)
			switch rng.IntN(3) {
			case 0:
				e.Change(u, lsptest.Edit{StartLine: line, EndLine: line, Text: "typed\n"})
			case 1:
				end := min(nl, line+1+rng.IntN(3))
				e.Change(u, lsptest.Edit{StartLine: line, EndLine: end})
			default:
				e.Change(u, lsptest.Edit{StartLine: line, StartChar: 0, EndLine: line, EndChar: len(ls[line]), Text: fmt.Sprintf("user %d", n)})
			}
			counts["user incremental"]++
		case op < 9: // the user's editor syncs the whole text
			ls2 := append([]string(nil), ls[:len(ls)-1]...)
			if len(ls2) > 0 {
				i := rng.IntN(len(ls2))
				ls2 = append(ls2[:i], append([]string{fmt.Sprintf("full %d", n)}, ls2[i:]...)...)
			} else {
				ls2 = []string{"restart"}
			}
			if len(ls2) > 300 {
				ls2 = ls2[:200]
			}
			e.ReplaceAll(u, strings.Join(ls2, "\n")+"\n")
			counts["user full"]++
		default:
			var out engine.Outcome
			if err := e.Call("sightline/session/reset", nil, &out); err != nil {
				t.Fatal(err)
			}
			counts["reset"]++
		}
		same(fmt.Sprintf("op %d", n))
	}
	t.Logf("%v", counts)
	if code := e.Shutdown(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	for wait := time.Now().Add(5 * time.Second); ; {
		g := runtime.NumGoroutine()
		if g <= baseline+2 {
			break
		}
		if time.Now().After(wait) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", g, baseline, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
