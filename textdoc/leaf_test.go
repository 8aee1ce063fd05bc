package textdoc

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/sightline-lsp/sightline/lines"
)

// Texts for the leaf representation: every terminator, alone and mixed,
// empty lines, and no final terminator.
var leafTexts = []string{
	"a\rb\rc\rd\re\r",
	"a\r\nb\r\nc\r\nd\r\ne\r\n",
	"a\nb\r\nc\rd\n\re\r\r\nf",
	"\r\r\n\n\r\n\r\r\n\n\n\r",
	"\n\n\n\n\n\n\n",
	"x\ny\r\nz",
	"last\r",
	"only",
	"é😀\r\n\r\n\rz\xff\n",
}

var leafShapes = []shape{makeShape(2, 4), makeShape(3, 4), defaultShape()}

func TestLeafLines(t *testing.T) {
	for _, text := range leafTexts {
		for _, sh := range leafShapes {
			s := newShaped(text, sh)
			checkSnap(t, s, text)
			lf, crlf, cr := s.Terminators()
			if wlf, wcrlf, wcr := refTerminators(text); lf != wlf || crlf != wcrlf || cr != wcr {
				t.Fatalf("Terminators(%q) = %d,%d,%d, want %d,%d,%d", text, lf, crlf, cr, wlf, wcrlf, wcr)
			}
			// New splits no "\r\n" across leaves: a leaf never starts with
			// the '\n' of a CRLF whose '\r' ended the leaf before.
			prev := ""
			s.root.walk(0, s.LineCount(), func(n *node, from, to int) bool {
				if strings.HasSuffix(prev, "\r") && strings.HasPrefix(n.text, "\n") {
					t.Fatalf("%q: a CRLF split across leaves %q and %q", text, prev, n.text)
				}
				prev = n.text
				return true
			})
		}
	}
}

// A leaf derives each line's terminator from the line's own bytes, so even
// lines "a\r" and "\n" stored side by side (which Apply never makes: it joins
// them into one CRLF line) read back as they were stored.
func TestLeafTermFromOwnBytes(t *testing.T) {
	r := run{"a\r\nb", []uint32{2, 3, 4}}
	want := []lines.Line{{Content: "a", Term: "\r"}, {Term: "\n"}, {Content: "b"}}
	for i, w := range want {
		if got := r.at(i); got != w {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
	if tm := r.terms(); tm != (terms{lf: 1, cr: 1}) {
		t.Errorf("terms = %+v", tm)
	}
}

// Changes that bring a bare "\r" and a "\n" together at a leaf boundary
// give one CRLF line, whichever side the leaf boundary falls.
func TestCRLFAcrossLeaves(t *testing.T) {
	cases := []struct {
		text string
		c    Change
	}{
		// Leaves of 2 lines: "a\rb\r" | "c\rd\r". A "\n" typed at the
		// start of the second leaf joins the "\r" ending the first.
		{"a\rb\rc\rd\r", Change{rng(2, 0, 2, 0), "\n"}},
		// Deleting "X" joins "\r" (end of the first leaf) and "\n".
		{"a\rb\rX\nd\r", Change{rng(2, 0, 2, 1), ""}},
		// Inside one leaf.
		{"a\rb\rc\rd\r", Change{rng(1, 0, 1, 0), "\n"}},
		// A "\r" typed at the end of a leaf's last line before a "\n" line.
		{"a\nb\n\nd\n", Change{rng(1, 1, 1, 2), "\r\n"}},
		// Full text: the diff sees the lines of the new text.
		{"a\rb\rc\rd\r", Change{nil, "a\rb\r\nc\rd\r"}},
	}
	for _, c := range cases {
		for _, sh := range leafShapes {
			s := newShaped(c.text, sh)
			want, _ := refApply(c.text, c.c, UTF16)
			ns, lcs, err := s.Apply([]Change{c.c}, UTF16)
			if err != nil {
				t.Fatal(err)
			}
			checkSnap(t, ns, want)
			checkSnap(t, s, c.text)
			if err := checkLineChanges(c.text, want, lcs); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// aliases reports whether a leaf of the tree holds bytes of s.
func aliases(n *node, s string) bool {
	if n == nil || s == "" {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	hi := lo + uintptr(len(s))
	found := false
	n.walk(0, n.nLines, func(lf *node, from, to int) bool {
		if lf.text != "" {
			p := uintptr(unsafe.Pointer(unsafe.StringData(lf.text)))
			found = p >= lo && p < hi
		}
		return !found
	})
	return found
}

// A full-text change of one line keeps none of the new text: the changed
// leaf copies its lines. (The snapshot would otherwise keep a whole
// document alive per keystroke of a full-sync editor.)
func TestFullTextChangeKeepsNoNewText(t *testing.T) {
	text := goSource(5000, 9)
	s := New(text)
	ls := lines.Split(text)
	for _, at := range []int{0, 2500, 4999} {
		edited := append([]lines.Line(nil), ls...)
		edited[at].Content += " // edited"
		nt := lines.Join(edited)
		ns, lcs, err := s.Apply([]Change{{Text: nt}}, UTF16)
		if err != nil || len(lcs) != 1 || lcs[0] != (LineChange{at, 1, 1}) {
			t.Fatalf("line %d: %v, %v", at, lcs, err)
		}
		checkSnap(t, ns, nt)
		if aliases(ns.root, nt) {
			t.Fatalf("line %d: the new snapshot keeps the new text alive", at)
		}
		if ns.Owned() > 16<<10 {
			t.Fatalf("line %d: Owned = %d for a one-line change", at, ns.Owned())
		}
		// A block of lines goes through split and concat.
		for k := 1000; k < 1100; k++ {
			edited[k].Content += " // block"
		}
		nt = lines.Join(edited)
		if ns, _, _ = s.Apply([]Change{{Text: nt}}, UTF16); aliases(ns.root, nt) {
			t.Fatalf("line %d: a block change keeps the new text alive", at)
		}
	}
}

// A range change whose text is mostly equal to the lines it replaces keeps
// only the lines that changed, not its whole text.
func TestRangeChangeKeepsLittleOfItsText(t *testing.T) {
	text := goSource(3000, 10)
	s := New(text)
	ls := lines.Split(text)
	ls[1500].Content += " // edited"
	for k := 1200; k < 1300; k++ {
		ls[k].Content += " // block"
	}
	repl := lines.Join(ls)
	ns, _, err := s.Apply([]Change{{rng(0, 0, uint32(len(ls)), 0), repl}}, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	checkSnap(t, ns, repl)
	if aliases(ns.root, repl) {
		t.Fatal("the snapshot keeps the change's text alive")
	}
}

// Owned counts text and index: all of them for New, what a change copied
// for Apply.
func TestOwned(t *testing.T) {
	text := goSource(100000, 11)
	s := New(text)
	perLine := float64(s.Owned()-len(text)) / float64(s.LineCount())
	if perLine < 4 || perLine > 12 {
		t.Errorf("New: Owned = text + %.1f bytes a line, want about 8", perLine)
	}
	ns, _, err := s.Apply([]Change{{rng(500, 1, 500, 1), "x"}}, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	if o := ns.Owned(); o < 1<<10 || o > 8<<10 {
		t.Errorf("keystroke: Owned = %d, want a leaf and a path of nodes (1-8 KiB)", o)
	}
	ns.ReleaseText()
	s.ReleaseText()
	if s.text.Load() == nil {
		t.Error("ReleaseText dropped the text New's leaves alias")
	}
	_ = ns.Text()
	ns.ReleaseText()
	if ns.text.Load() != nil {
		t.Error("ReleaseText kept a text built by Text")
	}
}

// NewOwned's leaves hold their own copies: none keeps the text it was built
// from alive, and neither does a full-text rewrite (a whole new message).
func TestNewOwnedKeepsNoText(t *testing.T) {
	text := goSource(5000, 11)
	s := NewOwned(text)
	checkSnap(t, s, text)
	if aliases(s.root, text) {
		t.Fatal("a NewOwned leaf aliases the text")
	}
	if !aliases(New(text).root, text) {
		t.Fatal("New copies the text (the check above proves nothing)")
	}
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "rewritten %d\n", i)
	}
	nt := b.String()
	ns, _, err := s.Apply([]Change{{Text: nt}}, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	checkSnap(t, ns, nt)
	if aliases(ns.root, nt) {
		t.Fatal("a rewriting full-text change keeps the new text alive")
	}
}

// Once changes have replaced most leaves of a NewOwned document, the
// original leaves they replaced are garbage: a surviving leaf keeps only
// its own text, not its siblings' (leaves are separate allocations).
func TestNewOwnedFreesReplacedLeaves(t *testing.T) {
	text := goSource(5000, 12)
	s := NewOwned(text)
	var collected atomic.Int32
	s.root.walk(0, s.root.nLines, func(lf *node, from, to int) bool {
		runtime.SetFinalizer(lf, func(*node) { collected.Add(1) })
		return true
	})
	leaves := 0
	s.root.walk(0, s.root.nLines, func(*node, int, int) bool { leaves++; return true })
	ls := lines.Split(text)
	cur := s
	for i := 0; i < len(ls)-100; i += 16 { // every leaf but the last few
		ls[i].Content += " // changed"
		var err error
		if cur, _, err = cur.Apply([]Change{{Text: lines.Join(ls)}}, UTF16); err != nil {
			t.Fatal(err)
		}
	}
	s = nil
	for range 3 {
		runtime.GC()
	}
	time.Sleep(50 * time.Millisecond) // finalizers run on their own goroutine
	runtime.GC()
	if n := int(collected.Load()); n < leaves/2 {
		t.Fatalf("%d of %d original leaves collected after their lines changed", n, leaves)
	}
	runtime.KeepAlive(cur)
}

// WriteTo gathers leaves into writes of at most writeChunk bytes (a line
// longer than that goes whole), and stops at a writer's first error.
func TestWriteToChunksAndErrors(t *testing.T) {
	text := goSource(20000, 13) + strings.Repeat("y", writeChunk+10) + "\nend\n"
	s := New(text)
	var sizes []int
	var out strings.Builder
	if _, err := s.WriteTo(writerFunc(func(p []byte) (int, error) {
		sizes = append(sizes, len(p))
		return out.Write(p)
	})); err != nil || out.String() != text {
		t.Fatalf("WriteTo: %v, %d bytes of %d", err, out.Len(), len(text))
	}
	for i, n := range sizes[:len(sizes)-2] {
		if n > writeChunk {
			t.Fatalf("write %d: %d bytes, over writeChunk", i, n)
		}
	}
	boom := errors.New("disk full")
	calls := 0
	n, err := s.WriteTo(writerFunc(func(p []byte) (int, error) {
		calls++
		return len(p) / 2, boom
	}))
	if !errors.Is(err, boom) || calls != 1 || n != int64(sizes[0]/2) {
		t.Fatalf("failing writer: %d bytes, %v, %d calls", n, err, calls)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// After a one-line edit of a large text, WriteTo hands on the lines the edit
// left as they lie in the text New read: nearly nothing is copied, in writes
// of at most writeChunk bytes, and the bytes are the new text exactly.
func TestWriteToPassesUnchangedRunsUncopied(t *testing.T) {
	text := goSource(60000, 5)
	s := New(text)
	next, _, err := s.Apply([]Change{{rng(30000, 0, 30000, 0), "// inserted\n"}}, UTF8)
	if err != nil {
		t.Fatal(err)
	}
	at := s.LineStart(30000)
	want := text[:at] + "// inserted\n" + text[at:]
	lo := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	var out strings.Builder
	aliased := 0
	if _, err := next.WriteTo(writerFunc(func(p []byte) (int, error) {
		if len(p) > writeChunk {
			t.Fatalf("a write of %d bytes", len(p))
		}
		if q := uintptr(unsafe.Pointer(unsafe.SliceData(p))); q >= lo && q < lo+uintptr(len(text)) {
			aliased += len(p)
		}
		return out.Write(p)
	})); err != nil || out.String() != want {
		t.Fatalf("WriteTo: %v, %d bytes of %d", err, out.Len(), len(want))
	}
	if aliased < len(text)*9/10 {
		t.Fatalf("%d of %d bytes handed on uncopied", aliased, len(text))
	}
}
