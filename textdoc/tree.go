package textdoc

import "github.com/sightline-lsp/sightline/lines"

// The line index is a persistent B+tree. Leaves hold lines, inner nodes hold
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
// (32 lines, 1 KiB of lines.Line headers) and one node per level (16 kids),
// and a 200,000-line document has 4 levels.
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

type node struct {
	height int // 0 for leaves
	nLines int
	nBytes int
	terms  terms        // terminator counts of the subtree, so the root answers Terminators in O(1)
	lines  []lines.Line // leaves
	kids   []kid        // inner nodes
}

// terms counts the line terminators of a subtree by kind. It lives in the
// node, not in kid: only construction reads a child's counts, while kid is
// scanned on every descent and is kept small.
type terms struct{ lf, crlf, cr int }

func (t *terms) addLine(l lines.Line) {
	switch l.Term {
	case "\n":
		t.lf++
	case "\r\n":
		t.crlf++
	case "\r":
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

func mkLeaf(ls []lines.Line) *node {
	n := &node{nLines: len(ls), lines: ls}
	for _, l := range ls {
		n.nBytes += l.Len()
		n.terms.addLine(l)
	}
	return n
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

// build makes a tree of ls bottom-up in O(len(ls)), spreading items evenly so
// every node is at least half full. Leaves alias ls (capacity-limited; nothing
// ever appends to a node's slice in place).
func (sh *shape) build(ls []lines.Line) *node {
	if len(ls) == 0 {
		return nil
	}
	nl := (len(ls) + sh.leafMax - 1) / sh.leafMax
	leaves := make([]node, nl) // one allocation for all leaves
	level := make([]kid, nl)
	for i := range nl {
		lo, hi := i*len(ls)/nl, (i+1)*len(ls)/nl
		lf := &leaves[i]
		lf.lines = ls[lo:hi:hi]
		lf.nLines = hi - lo
		for _, l := range lf.lines {
			lf.nBytes += l.Len()
			lf.terms.addLine(l)
		}
		level[i] = kidOf(lf)
	}
	for len(level) > 1 {
		m := (len(level) + sh.nodeMax - 1) / sh.nodeMax
		up := make([]kid, m)
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
	return n.lines[i]
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
	for _, l := range n.lines[:i] {
		off += l.Len()
	}
	return off
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
	for _, l := range n.lines {
		if off < l.Len() {
			break
		}
		off -= l.Len()
		line++
	}
	return line, off
}

// walk calls fn with the runs of lines [from, to) of the subtree, one per
// leaf, in order, and reports whether fn asked to go on.
func (n *node) walk(from, to int, fn func([]lines.Line) bool) bool {
	if n.height == 0 {
		return fn(n.lines[from:to])
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

// walkBack calls fn for all lines of the subtree, last first.
func (n *node) walkBack(fn func(lines.Line) bool) bool {
	if n.height == 0 {
		for i := len(n.lines) - 1; i >= 0; i-- {
			if !fn(n.lines[i]) {
				return false
			}
		}
		return true
	}
	for i := len(n.kids) - 1; i >= 0; i-- {
		if !n.kids[i].n.walkBack(fn) {
			return false
		}
	}
	return true
}

// replace returns the tree with lines [a, b) replaced by repl. Changes inside
// one leaf that keep it within its size limits copy just the root-to-leaf path;
// everything else goes through split and concat, O(log n) each plus the size of
// repl.
func (sh *shape) replace(root *node, a, b int, repl []lines.Line) *node {
	if root != nil {
		if nr, ok := sh.replaceInLeaf(root, a, b, repl, true); ok {
			return nr
		}
	}
	l, rest := sh.split(root, a)
	_, r := sh.split(rest, b-a)
	return sh.concat(sh.concat(l, sh.build(repl)), r)
}

// replaceInLeaf is the fast path of replace; ok is false when [a, b) spans
// leaves or the leaf would over- or underflow.
func (sh *shape) replaceInLeaf(n *node, a, b int, repl []lines.Line, isRoot bool) (*node, bool) {
	if n.height == 0 {
		size := len(n.lines) - (b - a) + len(repl)
		if size > sh.leafMax || (!isRoot && size < sh.leafMin) {
			return nil, false
		}
		if size == 0 {
			return nil, true // the root leaf emptied: empty document
		}
		ls := make([]lines.Line, 0, size)
		ls = append(ls, n.lines[:a]...)
		ls = append(ls, repl...)
		ls = append(ls, n.lines[b:]...)
		return mkLeaf(ls), true
	}
	off := 0
	for i, k := range n.kids {
		end := off + k.nLines
		if b <= end {
			if a < off {
				return nil, false
			}
			c, ok := sh.replaceInLeaf(k.n, a-off, b-off, repl, false)
			if !ok {
				return nil, false
			}
			ks := make([]kid, len(n.kids))
			copy(ks, n.kids)
			ks[i] = kidOf(c)
			return mkInner(ks), true
		}
		off = end
	}
	return nil, false
}

// fromKids makes a valid tree of a run of sibling subtrees (which are valid
// non-root nodes, so any count of them makes a valid root).
func fromKids(ks []kid) *node {
	switch len(ks) {
	case 0:
		return nil
	case 1:
		return ks[0].n
	}
	return mkInner(ks)
}

// split returns trees of lines [0, i) and [i, n) of the tree n.
func (sh *shape) split(n *node, i int) (*node, *node) {
	if n == nil || i <= 0 {
		return nil, n
	}
	if i >= n.nLines {
		return n, nil
	}
	if n.height == 0 {
		return mkLeaf(n.lines[:i:i]), mkLeaf(n.lines[i:])
	}
	off := 0
	for k, c := range n.kids {
		end := off + c.nLines
		if i < end {
			if i == off {
				return fromKids(n.kids[:k:k]), fromKids(n.kids[k:])
			}
			cl, cr := sh.split(c.n, i-off)
			return sh.concat(fromKids(n.kids[:k:k]), cl), sh.concat(cr, fromKids(n.kids[k+1:]))
		}
		off = end
	}
	panic("textdoc: split: counts out of sync")
}

// concat joins two valid trees, l before r, into one, in O(height difference).
func (sh *shape) concat(l, r *node) *node {
	if l == nil {
		return r
	}
	if r == nil {
		return l
	}
	var a, b *node
	switch {
	case l.height == r.height:
		a, b = sh.merge(l, r)
	case l.height > r.height:
		a, b = sh.appendTree(l, r)
	default:
		a, b = sh.prependTree(r, l)
	}
	if b == nil {
		return a
	}
	return mkInner([]kid{kidOf(a), kidOf(b)})
}

// merge joins two nodes of equal height whose items are valid. It returns one
// node, or two when the items overflow one; two are each at least half full.
func (sh *shape) merge(a, b *node) (*node, *node) {
	if a.height == 0 {
		ls := make([]lines.Line, 0, len(a.lines)+len(b.lines))
		ls = append(append(ls, a.lines...), b.lines...)
		if len(ls) <= sh.leafMax {
			return mkLeaf(ls), nil
		}
		h := len(ls) / 2
		return mkLeaf(ls[:h:h]), mkLeaf(ls[h:])
	}
	ks := make([]kid, 0, len(a.kids)+len(b.kids))
	ks = append(append(ks, a.kids...), b.kids...)
	return sh.splitKids(ks)
}

func (sh *shape) splitKids(ks []kid) (*node, *node) {
	if len(ks) <= sh.nodeMax {
		return mkInner(ks), nil
	}
	h := len(ks) / 2
	return mkInner(ks[:h:h]), mkInner(ks[h:])
}

// appendTree hangs the tree r (lower than n) at the right edge of n. r's root
// may be underfull, so it is merged with the node it lands next to, which is
// full enough to absorb it. Returns one or two nodes of n's height.
func (sh *shape) appendTree(n, r *node) (*node, *node) {
	last := n.kids[len(n.kids)-1].n
	var a, b *node
	if last.height == r.height {
		a, b = sh.merge(last, r)
	} else {
		a, b = sh.appendTree(last, r)
	}
	ks := make([]kid, 0, len(n.kids)+1)
	ks = append(ks, n.kids[:len(n.kids)-1]...)
	ks = append(ks, kidOf(a))
	if b != nil {
		ks = append(ks, kidOf(b))
	}
	return sh.splitKids(ks)
}

// prependTree is appendTree's mirror: l (lower than n) goes at n's left edge.
func (sh *shape) prependTree(n, l *node) (*node, *node) {
	first := n.kids[0].n
	var a, b *node
	if first.height == l.height {
		a, b = sh.merge(l, first)
	} else {
		a, b = sh.prependTree(first, l)
	}
	ks := make([]kid, 0, len(n.kids)+1)
	ks = append(ks, kidOf(a))
	if b != nil {
		ks = append(ks, kidOf(b))
	}
	ks = append(ks, n.kids[1:]...)
	return sh.splitKids(ks)
}
