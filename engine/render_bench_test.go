package engine

import (
	"context"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/internal/gosrc"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
)

// wholeRead200k is 200,000 lines of the standard library's Go, one text.
func wholeRead200k(b *testing.B) string {
	src, err := gosrc.Lines(200_000)
	if err != nil {
		b.Skip(err)
	}
	return strings.Join(src, "")
}

// bareLoop is the floor a whole-file read's render is measured against: the
// plainest Go loop making the same output from the file's text, on one
// goroutine (lines cut at '\n', strconv for the number, CRC-32 and base62
// for the hash), into a buffer it reuses.
func bareLoop(dst []byte, text string) []byte {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	dst = dst[:0]
	n := 1
	for rest := text; rest != ""; n++ {
		i := strings.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, ':')
		v := (crc32.ChecksumIEEE([]byte(line)) & 0xFFFFFF) % (62 * 62 * 62 * 62)
		dst = append(dst, alphabet[v/(62*62*62)], alphabet[v/(62*62)%62], alphabet[v/62%62], alphabet[v%62], '|')
		dst = append(dst, line...)
		dst = append(dst, '\n')
	}
	return dst
}

// renderWhole is what a whole-file read of text costs the product: the
// line index (the document), then the render of every line as a read shows
// it, into a buffer of its own.
func renderWhole(text string) ([]byte, error) {
	snap := textdoc.New(text)
	n := snap.LineCount()
	buf, _, err := fillRead(context.Background(), ledger.Range{Start: 1, End: n}, 1<<62, true, renderSize(snap, ledger.Range{Start: 1, End: n}, true), false, snapLines(snap, ledger.Range{Start: 1, End: n}))
	return buf, err
}

// BenchmarkWholeRead200k compares the product's whole-file read render
// with the bare loop in the same run: each iteration times both, one after
// the other, and the medians and their ratio are reported, so the load of
// a shared machine weighs on both alike.
func BenchmarkWholeRead200k(b *testing.B) {
	text := wholeRead200k(b)
	want := bareLoop(nil, text)
	got, err := renderWhole(text)
	if err != nil || string(got) != string(want) {
		b.Fatalf("the render differs from the bare loop's output (err %v)", err)
	}
	b.SetBytes(int64(len(text)))
	var bare, product []time.Duration
	dst := make([]byte, 0, len(want))
	for b.Loop() {
		t0 := time.Now()
		dst = bareLoop(dst, text)
		t1 := time.Now()
		if _, err := renderWhole(text); err != nil {
			b.Fatal(err)
		}
		bare, product = append(bare, t1.Sub(t0)), append(product, time.Since(t1))
	}
	med := func(ds []time.Duration) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / 1e6
	}
	b.ReportMetric(med(bare), "bare-ms")
	b.ReportMetric(med(product), "product-ms")
	b.ReportMetric(med(product)/med(bare), "ratio")
}

// BenchmarkWholeReadRender200k is the render alone, the document built.
func BenchmarkWholeReadRender200k(b *testing.B) {
	snap := textdoc.New(wholeRead200k(b))
	n := snap.LineCount()
	b.SetBytes(int64(snap.Len()))
	for b.Loop() {
		if _, _, err := fillRead(context.Background(), ledger.Range{Start: 1, End: n}, 1<<62, true, renderSize(snap, ledger.Range{Start: 1, End: n}, true), false, snapLines(snap, ledger.Range{Start: 1, End: n})); err != nil {
			b.Fatal(err)
		}
	}
}
