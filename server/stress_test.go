package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/lsptest"
)

// TestDidChangeOrderingStress sends 5,000 incremental changes in bursts and
// checks after every burst that the server's text is byte for byte the
// editor's: notifications must be applied in wire order, and a request must
// see every change sent before it.
func TestDidChangeOrderingStress(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 500
	}
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			caps := `{"general":{"positionEncodings":["` + enc + `"]}}`
			e, root := start(t, nil, lsptest.Options{Capabilities: []byte(caps)})
			if e.Encoding() != enc {
				t.Fatalf("negotiated %s, want %s", e.Encoding(), enc)
			}
			u := fileURI(root, "stress.txt")
			e.Open(u, "plaintext", "héllo wörld 😀\r\nsecond line\rthird\n")
			rng := rand.New(rand.NewPCG(1, 2))
			pieces := []string{"a", "é", "😀", "\n", "\r\n", "\r", "xyz", "", "\t", "line\n"}
			const burst = 50
			for i := 0; i < n; i++ {
				text := e.Buffer(u)
				sl, sc := randomPos(rng, text, enc)
				el, ec := randomPos(rng, text, enc)
				if el < sl || el == sl && ec < sc {
					sl, sc, el, ec = el, ec, sl, sc
				}
				if rng.IntN(3) == 0 { // mostly small edits, like typing
					el, ec = sl, sc
				}
				e.Change(u, lsptest.Edit{StartLine: sl, StartChar: sc, EndLine: el, EndChar: ec, Text: pieces[rng.IntN(len(pieces))]})
				if i%burst == burst-1 {
					want := e.Buffer(u)
					res := read(t, e, u, nil, map[string]any{"budget": map[string]int{"chars": 1 << 30}, "annotate": false})
					sum := sha256.Sum256([]byte(want))
					if res.FileHash != "sha256:"+hex.EncodeToString(sum[:]) {
						t.Fatalf("after change %d the server's text differs from the editor's:\nserver lines %d, editor %q", i+1, res.TotalLines, want)
					}
					if res.Version == nil || *res.Version != e.Version(u) {
						t.Fatalf("version %v, editor at %d", res.Version, e.Version(u))
					}
				}
			}
		})
	}
}

// randomPos picks a valid position (line, character in enc units) in text,
// sometimes on a character boundary past the line's end (clients do that).
func randomPos(rng *rand.Rand, text, enc string) (int, int) {
	lines := splitLSP(text)
	l := rng.IntN(len(lines))
	units := 0
	var stops []int
	stops = append(stops, 0)
	for _, r := range lines[l] {
		switch enc {
		case "utf-8":
			units += utf8.RuneLen(r)
		default:
			units += len(utf16.Encode([]rune{r}))
		}
		stops = append(stops, units)
	}
	return l, stops[rng.IntN(len(stops))]
}

// splitLSP splits on \n, \r\n and \r, keeping the empty last line an editor
// shows after a final terminator.
func splitLSP(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Split(text, "\n")
}
