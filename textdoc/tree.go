package textdoc

import (
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/sightline-lsp/sightline/lines"
)

// The line index is a persistent B+tree. Leaves hold a run of lines (their
// bytes in one string and the end of each line in it), inner nodes hold
// children with their cached line and byte counts. Nodes are never modified
// after construction: every update copies the path it touches, so old
// snapshots stay valid and share everything else.
//
// Invariants (checked by the tests): all leaves are at height 0 and at the same
// depth; every node except the root holds at least min and at most max items
// (lines for leaves, children for inner nodes); the root holds at least one
// item (an inner root at least two), and an empty tree is nil.

// shape holds the node size limits. It is a parameter so the tests can build
// deep trees from few lines.
type shape struct {
	leafMax, leafMin int
	nodeMax, nodeMin int
}

// Default sizes, measured with the benchmarks: a keystroke copies one leaf
// (the text of 32 lines and their 128 bytes of ends) and one node per level
// (16 kids), and a 200,000-line document has 4 levels.
func defaultShape() shape { return makeShape(32, 16) }

// makeShape derives the minimums. A split of an overfull node (max+1 items)
// gives halves of at least max/2, so min = max/2 always holds after a split.
// nodeMax >= 4 keeps nodeMin >= 2, which bounds the height by log2 of the size.
func makeShape(leafMax, nodeMax int) shape {
	if leafMax < 2 || nodeMax < 4 {
		panic("textdoc: tree shape too small")
	}
	return shape{leafMax: leafMax, leafMin: leafMax / 2, nodeMax: nodeMax, nodeMin: nodeMax / 2}
}

// run is a sequence of lines stored as a leaf stores them: text holds their
// bytes, terminators included, and ends[i] is the end of line i in text (so
// the last is len(text)). A line is two substrings made on demand: by the
// line rule its terminator is what its last bytes are (lines.Of), and the
// index costs 4 bytes a line instead of two string headers (32).
//
// A run handed to the tree may be kept by it, text and ends both, so it must
// not alias more than it holds (a small change must not keep a whole new
// document alive). Offsets are uint32: a document is at most MaxLen bytes,
// so every leaf's are.
type run struct {
	text string
	ends []uint32
}

// start returns the offset of line i in r.text; i == len(r.ends) gives len(r.text).
func (r *run) start(i int) int {
	if i == 0 {
		return 0
	}
	return int(r.ends[i-1])
}

// at returns line i of r.
func (r *run) at(i int) lines.Line { return lines.Of(r.text[r.start(i):r.ends[i]]) }

// bytes returns the text of lines [from, to) of r.
func (r *run) bytes(from, to int) string { return r.text[r.start(from):r.start(to)] }

// sub returns lines [from, to) of r as a run of their own: the text aliases
// r's, the ends are a new slice (rebased).
func (r *run) sub(from, to int) run {
	s := uint32(r.start(from))
	ends := make([]uint32, to-from)
	for i, e := range r.ends[from:to] {
		ends[i] = e - s
	}
	return run{r.bytes(from, to), ends}
}

func (r *run) terms() terms {
	var t terms
	if strings.IndexByte(r.text, '\r') < 0 {
		// Only "\n" ends lines, all but a last one without terminator: a
		// vectorised search instead of a look at every line.
		t.lf = len(r.ends)
		if len(r.ends) > 0 && !strings.HasSuffix(r.text, "\n") {
			t.lf--
		}
		return t
	}
	for i := range r.ends {
		t.addLine(r.at(i))
	}
	return t
}

type node struct {
	height int // 0 for leaves
	nLines int
	nBytes int
	terms  terms // terminator counts of the subtree, so the root answers Terminators in O(1)
	run          // leaves
	kids   []kid // inner nodes
}

// Memory of the index's parts, for Owned.
const (
	nodeSize = int(unsafe.Sizeof(node{}))
	kidSize  = int(unsafe.Sizeof(kid{}))
	endSize  = int(unsafe.Sizeof(uint32(0)))
)

// terms counts the line terminators of a subtree by kind. It lives in the
// node, not in kid: only construction reads a child's counts, while kid is
// scanned on every descent and is kept small.
type terms struct{ lf, crlf, cr int }

func (t *terms) addLine(l lines.Line) {
	switch {
	case len(l.Term) == 2:
		t.crlf++
	case l.Term == "\n":
		t.lf++
	case l.Term == "\r":
		t.cr++
	}
}

func (t *terms) add(u terms) {
	t.lf += u.lf
	t.crlf += u.crlf
	t.cr += u.cr
}

// kid repeats the child's counts so that a descent scans one contiguous array
// instead of dereferencing every child.
type kid struct {
	n      *node
	nLines int
	nBytes int
}

func kidOf(n *node) kid { return kid{n, n.nLines, n.nBytes} }

// setLeaf makes n the leaf of r.
func (n *node) setLeaf(r run) {
	if uint64(len(r.text)) > math.MaxUint32 {
		// Unreachable while documents keep within MaxLen; an offset that
		// wrapped around would silently misplace lines.
		panic("textdoc: leaf text over 4 GiB")
	}
	*n = node{nLines: len(r.ends), nBytes: len(r.text), run: r}
	n.terms = r.terms()
}

func mkInner(ks []kid) *node {
	n := &node{height: ks[0].n.height + 1, kids: ks}
	for _, k := range ks {
		n.nLines += k.nLines
		n.nBytes += k.nBytes
		n.terms.add(k.n.terms)
	}
	return n
}

// update makes the nodes of one change of a tree and counts the memory they
// take (what the new snapshot holds beyond the old, for Owned; nodes made and
// dropped within the change count too: an estimate that errs on the side of
// memory). It is per change, so concurrent updates share nothing.
type update struct {
	sh    shape
	bytes int
	// own makes build give every leaf its own copy of its text and ends,
	// so no leaf keeps the whole text (or index) it was built from alive.
	own bool
}

// leaf makes a leaf of r; newText and newEnds tell whether r's text and ends
// were allocated for it (they count as its memory).
func (u *update) leaf(r run, newText, newEnds bool) *node {
	n := new(node)
	n.setLeaf(r)
	u.bytes += nodeSize
	if newText {
		u.bytes += len(r.text)
	}
	if newEnds {
		u.bytes += cap(r.ends) * endSize
	}
	return n
}

func (u *update) inner(ks []kid) *node {
	u.bytes += nodeSize + cap(ks)*kidSize
	return mkInner(ks)
}

// build makes a tree of r bottom-up in O(lines), spreading items evenly so
// every node is at least half full. The tree keeps r: leaves alias r.text and
// r.ends, whose offsets are rewritten in place to be relative to each leaf
// (capacity-limited; nothing ever appends to a leaf's ends in place). The
// memory counted is the nodes' and the ends', not the text's.
func (u *update) build(r run) *node {
	sh := &u.sh
	n := len(r.ends)
	if n == 0 {
		return nil
	}
	nl := (n + sh.leafMax - 1) / sh.leafMax
	var leaves []node
	if !u.own {
		leaves = make([]node, nl) // one allocation for all leaves
	}
	level := make([]kid, nl)
	u.bytes += nl*(nodeSize+kidSize) + cap(r.ends)*endSize
	start := uint32(0)
	for i := range nl {
		lo, hi := i*n/nl, (i+1)*n/nl
		ends := r.ends[lo:hi:hi]
		end := ends[len(ends)-1]
		if start > 0 {
			for j := range ends {
				ends[j] -= start
			}
		}
		lr := run{r.text[start:end], ends}
		var lf *node
		if u.own {
			// Each leaf its own allocations, node included: the GC keeps a
			// shared array whole, and with it every leaf's text, while any
			// one leaf of it is still in use.
			lr = run{strings.Clone(lr.text), slices.Clone(lr.ends)}
			lf = new(node)
		} else {
			lf = &leaves[i]
		}
		lf.setLeaf(lr)
		level[i] = kidOf(lf)
		start = end
	}
	for len(level) > 1 {
		m := (len(level) + sh.nodeMax - 1) / sh.nodeMax
		up := make([]kid, m)
		u.bytes += m * (nodeSize + kidSize)
		for i := range m {
			lo, hi := i*len(level)/m, (i+1)*len(level)/m
			up[i] = kidOf(mkInner(level[lo:hi:hi]))
		}
		level = up
	}
	return level[0].n
}

// line returns line i of the subtree; 0 <= i < n.nLines.
func (n *node) line(i int) lines.Line {
	for n.height > 0 {
		for _, k := range n.kids {
			if i < k.nLines {
				n = k.n
				break
			}
			i -= k.nLines
		}
	}
	return n.at(i)
}

// lineStart returns the byte offset of line i; 0 <= i <= n.nLines.
func (n *node) lineStart(i int) int {
	off := 0
	if i >= n.nLines {
		return n.nBytes
	}
	for n.height > 0 {
		for _, k := range n.kids {
			if i < k.nLines {
				n = k.n
				break
			}
			i -= k.nLines
			off += k.nBytes
		}
	}
	return off + n.start(i)
}

// lineAt returns the line holding byte offset off (0 <= off < n.nBytes) and
// the offset relative to that line's start.
func (n *node) lineAt(off int) (line, rel int) {
	for n.height > 0 {
		for _, k := range n.kids {
			if off < k.nBytes {
				n = k.n
				break
			}
			off -= k.nBytes
			line += k.nLines
		}
	}
	i := 0
	for int(n.ends[i]) <= off {
		i++
	}
	return line + i, off - n.start(i)
}

// walk calls fn with the leaves holding lines [from, to) of the subtree, in
// order, each with the range of its lines to visit, and reports whether fn
// asked to go on.
func (n *node) walk(from, to int, fn func(leaf *node, from, to int) bool) bool {
	if n.height == 0 {
		return fn(n, from, to)
	}
	off := 0
	for _, k := range n.kids {
		end := off + k.nLines
		if from < end && to > off {
			if !k.n.walk(max(from-off, 0), min(to, end)-off, fn) {
				return false
			}
		}
		if end >= to {
			break
		}
		off = end
	}
	return true
}

// walkBack calls fn for all leaves of the subtree, last first.
func (n *node) walkBack(fn func(leaf *node) bool) bool {
	if n.height == 0 {
		return fn(n)
	}
	for i := len(n.kids) - 1; i >= 0; i-- {
		if !n.kids[i].n.walkBack(fn) {
			return false
		}
	}
	return true
}

// sameLines reports whether lines [from, to) of the leaf lf equal lines
// [at, at+to-from) of r: the same bytes, split at the same offsets, are the
// same lines. One comparison of the bytes and of the ends instead of a line
// at a time.
func sameLines(lf *node, from, to int, r *run, at int) bool {
	n := to - from
	if at+n > len(r.ends) || lf.bytes(from, to) != r.bytes(at, at+n) {
		return false
	}
	sa, sb := uint32(lf.start(from)), uint32(r.start(at))
	for k := range n {
		if lf.ends[from+k]-sa != r.ends[at+k]-sb {
			return false
		}
	}
	return true
}

// replace returns the tree with lines [a, b) replaced by the lines of r, which
// it may keep (see run): borrowed says that r.text is part of a larger string
// that must not be kept, so what the tree keeps of it is copied first. Changes
// inside one leaf that keep it within its size limits copy just the
// root-to-leaf path; everything else goes through split and concat, O(log n)
// each plus the size of r.
func (u *update) replace(root *node, a, b int, r run, borrowed bool) *node {
	if root != nil {
		if nr, ok := u.replaceInLeaf(root, a, b, r, true); ok {
			return nr
		}
	}
	if borrowed {
		r.text = strings.Clone(r.text)
	}
	u.bytes += len(r.text)
	l, rest := u.split(root, a)
	_, rt := u.split(rest, b-a)
	return u.concat(u.concat(l, u.build(r)), rt)
}

// replaceInLeaf is the fast path of replace; ok is false when [a, b) spans
// leaves or the leaf would over- or underflow.
func (u *update) replaceInLeaf(n *node, a, b int, r run, isRoot bool) (*node, bool) {
	if n.height == 0 {
		size := len(n.ends) - (b - a) + len(r.ends)
		if size > u.sh.leafMax || (!isRoot && size < u.sh.leafMin) {
			return nil, false
		}
		if size == 0 {
			return nil, true // the root leaf emptied: empty document
		}
		sa, sb := n.start(a), n.start(b)
		// One allocation of the exact size; the leaf's text is copied, so
		// it never keeps alive more than its lines.
		text := n.text[:sa] + r.text + n.text[sb:]
		ends := make([]uint32, 0, size)
		ends = append(ends, n.ends[:a]...)
		for _, e := range r.ends {
			ends = append(ends, e+uint32(sa))
		}
		// Modulo 2^32 the shift is right even when negative: every result
		// fits, as the leaf's text does.
		shift := uint32(sa+len(r.text)) - uint32(sb)
		for _, e := range n.ends[b:] {
			ends = append(ends, e+shift)
		}
		return u.leaf(run{text, ends}, true, true), true
	}
	off := 0
	for i, k := range n.kids {
		end := off + k.nLines
		if b <= end {
			if a < off {
				return nil, false
			}
			c, ok := u.replaceInLeaf(k.n, a-off, b-off, r, false)
			if !ok {
				return nil, false
			}
			ks := make([]kid, len(n.kids))
			copy(ks, n.kids)
			ks[i] = kidOf(c)
			return u.inner(ks), true
		}
		off = end
	}
	return nil, false
}

// fromKids makes a valid tree of a run of sibling subtrees (which are valid
// non-root nodes, so any count of them makes a valid root).
func (u *update) fromKids(ks []kid) *node {
	switch len(ks) {
	case 0:
		return nil
	case 1:
		return ks[0].n
	}
	return u.inner(ks)
}

// split returns trees of lines [0, i) and [i, n) of the tree n.
func (u *update) split(n *node, i int) (*node, *node) {
	if n == nil || i <= 0 {
		return nil, n
	}
	if i >= n.nLines {
		return n, nil
	}
	if n.height == 0 {
		// Both halves share n's text: it is one leaf's.
		l := run{n.bytes(0, i), n.ends[:i:i]}
		return u.leaf(l, false, false), u.leaf(n.sub(i, len(n.ends)), false, true)
	}
	off := 0
	for k, c := range n.kids {
		end := off + c.nLines
		if i < end {
			if i == off {
				return u.fromKids(n.kids[:k:k]), u.fromKids(n.kids[k:])
			}
			cl, cr := u.split(c.n, i-off)
			return u.concat(u.fromKids(n.kids[:k:k]), cl), u.concat(cr, u.fromKids(n.kids[k+1:]))
		}
		off = end
	}
	panic("textdoc: split: counts out of sync")
}

// concat joins two valid trees, l before r, into one, in O(height difference).
func (u *update) concat(l, r *node) *node {
	if l == nil {
		return r
	}
	if r == nil {
		return l
	}
	var a, b *node
	switch {
	case l.height == r.height:
		a, b = u.merge(l, r)
	case l.height > r.height:
		a, b = u.appendTree(l, r)
	default:
		a, b = u.prependTree(r, l)
	}
	if b == nil {
		return a
	}
	return u.inner([]kid{kidOf(a), kidOf(b)})
}

// merge joins two nodes of equal height whose items are valid. It returns one
// node, or two when the items overflow one; two are each at least half full.
func (u *update) merge(a, b *node) (*node, *node) {
	if a.height == 0 {
		text := a.text + b.text
		ends := make([]uint32, len(a.ends)+len(b.ends))
		copy(ends, a.ends)
		shift := uint32(len(a.text))
		for i, e := range b.ends {
			ends[len(a.ends)+i] = e + shift
		}
		if len(ends) <= u.sh.leafMax {
			return u.leaf(run{text, ends}, true, true), nil
		}
		// The halves share the new text and ends, each counting its part.
		h := len(ends) / 2
		s := ends[h-1]
		l := u.leaf(run{text[:s], ends[:h:h]}, true, true)
		rest := ends[h:]
		for i := range rest {
			rest[i] -= s
		}
		return l, u.leaf(run{text[s:], rest}, true, true)
	}
	ks := make([]kid, 0, len(a.kids)+len(b.kids))
	ks = append(append(ks, a.kids...), b.kids...)
	return u.splitKids(ks)
}

func (u *update) splitKids(ks []kid) (*node, *node) {
	if len(ks) <= u.sh.nodeMax {
		return u.inner(ks), nil
	}
	h := len(ks) / 2
	return u.inner(ks[:h:h]), u.inner(ks[h:])
}

// appendTree hangs the tree r (lower than n) at the right edge of n. r's root
// may be underfull, so it is merged with the node it lands next to, which is
// full enough to absorb it. Returns one or two nodes of n's height.
func (u *update) appendTree(n, r *node) (*node, *node) {
	last := n.kids[len(n.kids)-1].n
	var a, b *node
	if last.height == r.height {
		a, b = u.merge(last, r)
	} else {
		a, b = u.appendTree(last, r)
	}
	ks := make([]kid, 0, len(n.kids)+1)
	ks = append(ks, n.kids[:len(n.kids)-1]...)
	ks = append(ks, kidOf(a))
	if b != nil {
		ks = append(ks, kidOf(b))
	}
	return u.splitKids(ks)
}

// prependTree is appendTree's mirror: l (lower than n) goes at n's left edge.
func (u *update) prependTree(n, l *node) (*node, *node) {
	first := n.kids[0].n
	var a, b *node
	if first.height == l.height {
		a, b = u.merge(l, first)
	} else {
		a, b = u.prependTree(first, l)
	}
	ks := make([]kid, 0, len(n.kids)+1)
	ks = append(ks, kidOf(a))
	if b != nil {
		ks = append(ks, kidOf(b))
	}
	ks = append(ks, n.kids[1:]...)
	return u.splitKids(ks)
}
