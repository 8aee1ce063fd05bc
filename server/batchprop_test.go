package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

// This file checks sightline/edit end to end (LSP, resolver, planner, guard,
// editor or disk, ledger) against a reference model written from the
// protocol alone: random files full of duplicate lines, random terminators,
// random batches of all six op types. Nothing here uses a sightline package
// beyond the test helpers and the result types it decodes.

// propPool is what lines are made of: duplicates (the ref-resolution trap),
// empty lines, tabs, non-ASCII. None looks like a hashline prefix.
var propPool = []string{"}", "}", "", "", "\treturn nil", "\treturn nil", "\tx := 1", "// note", "\té😀 := \"ü\"", "func f() {", "  spaced  "}

const propBOM = "\uFEFF"

// tline is a line with its terminator ("" for a last line without one).
type tline struct{ content, term string }

// mline is a line of the model's new text: where it came from decides which
// byte rules apply to it.
type mline struct {
	tline
	written bool   // content written by an op of the batch
	origin  int    // 1-based old line it is (untouched lines), else 0
	ends    string // for the last line of a replacement: the replaced last line's terminator
	replace bool   // the last line of a replacement
}

// splitTerms splits by the LSP rule (\n, \r\n, \r), keeping each terminator;
// a final terminator starts no line, and "" has no lines.
func splitTerms(s string) []tline {
	var out []tline
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, tline{s, ""})
			break
		}
		t := s[i : i+1]
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			t = "\r\n"
		}
		out = append(out, tline{s[:i], t})
		s = s[i+len(t):]
	}
	return out
}

// parseText is the text as the agent sees it: lines, and whether line 1
// began with a byte-order mark (which is not content).
func parseText(s string) (bool, []tline) {
	ls := splitTerms(s)
	if len(ls) > 0 && strings.HasPrefix(ls[0].content, propBOM) {
		ls[0].content = strings.TrimPrefix(ls[0].content, propBOM)
		return true, ls
	}
	return false, ls
}

func render(bom bool, ls []tline) string {
	var b strings.Builder
	if bom && len(ls) > 0 {
		b.WriteString(propBOM)
	}
	for _, l := range ls {
		b.WriteString(l.content + l.term)
	}
	return b.String()
}

func contentsOf(ls []tline) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.content
	}
	return out
}

// dominantTerm: the most used terminator; "\n" wins any tie, "\r\n" a tie
// with "\r" (textdoc's documented tie rule).
func dominantTerm(ls []tline) string {
	var lf, crlf, cr int
	for _, l := range ls {
		switch l.term {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		case "\r":
			cr++
		}
	}
	switch {
	case crlf > lf && crlf >= cr:
		return "\r\n"
	case cr > lf && cr > crlf:
		return "\r"
	}
	return "\n"
}

// pop is one op of a batch, in old 1-based lines.
type pop struct {
	typ     string
	s, e    int
	content []string // the lines new_content means
	wire    string   // new_content as sent
}

func (o pop) inserts() bool { return o.typ == "insert_after" || o.typ == "insert_before" }

// gap is where an insert goes: gap g lies between old lines g and g+1.
func (o pop) gap() int {
	if o.typ == "insert_after" {
		return o.s
	}
	return o.s - 1
}

// overlaps is the protocol's overlap rule: two ops' target lines (replaced,
// deleted, or an insert's anchor) intersect, or two inserts share a gap.
func overlaps(a, b pop) bool {
	if a.s <= b.e && b.s <= a.e {
		return true
	}
	return a.inserts() && b.inserts() && a.gap() == b.gap()
}

// apply is the reference: the batch applied as the protocol defines it, all
// ops in the old numbering, with the documented byte rules (protocol
// "Details" and hashline.PlanEdits' doc comment): new lines take the
// dominant terminator, a replacement's last line the replaced last line's;
// the final-newline state is kept, except that an empty last line keeps a
// terminator; the mark stays in front of whatever line is first; and a bare
// "\r" before an empty "\n" line (one "\r\n" when read back) becomes "\r\n"
// on the written line, or on the empty one when neither is written.
func apply(bom bool, old []tline, ops []pop) (bool, []mline) {
	n := len(old)
	dom := dominantTerm(old)
	ins := map[int]pop{}
	at := map[int]pop{}
	for _, o := range ops {
		if o.inserts() {
			ins[o.gap()] = o
		} else {
			at[o.s] = o
		}
	}
	var out []mline
	// emit writes op lines; a replacement's last line ends as the replaced
	// last line did.
	emit := func(cs []string, replaced *tline) {
		for _, c := range cs {
			out = append(out, mline{tline: tline{c, dom}, written: true})
		}
		if replaced != nil {
			m := &out[len(out)-1]
			m.term, m.ends, m.replace = replaced.term, replaced.term, true
		}
	}
	for g := 0; g <= n; g++ {
		if o, ok := ins[g]; ok {
			emit(o.content, nil)
		}
		if g == n {
			break
		}
		if o, ok := at[g+1]; ok {
			if strings.HasPrefix(o.typ, "replace") {
				emit(o.content, &old[o.e-1])
			}
			g = o.e - 1
			continue
		}
		out = append(out, mline{tline: old[g], origin: g + 1})
	}
	bomAfter := bom && len(out) > 0
	// Empty means "would vanish without a terminator": with the mark in
	// front, line 1 is a line even when its content is empty.
	empty := func(i int) bool { return out[i].content == "" && !(i == 0 && bomAfter) }
	if n > 0 && old[n-1].term == "" && len(out) > 0 {
		for i := range out[:len(out)-1] {
			if out[i].term == "" {
				out[i].term = dom
			}
		}
		last := len(out) - 1
		switch {
		case !empty(last):
			out[last].term = ""
		case out[last].term == "":
			out[last].term = dom
		}
	}
	for i := 1; i < len(out); i++ {
		if out[i-1].term == "\r" && empty(i) && out[i].term == "\n" {
			if !out[i].written && out[i-1].written {
				out[i-1].term = "\r\n"
			} else {
				out[i].term = "\r\n"
			}
		}
	}
	return bomAfter, out
}

func tlines(ms []mline) []tline {
	out := make([]tline, len(ms))
	for i, m := range ms {
		out[i] = m.tline
	}
	return out
}

// genFile draws a file of 1-30 lines: one terminator style (LF, CRLF, CR or
// mixed per line), maybe a mark, maybe no final newline.
func genFile(r *rand.Rand) string {
	n := 1 + r.IntN(30)
	styles := [][]string{{"\n"}, {"\r\n"}, {"\r"}, {"\n", "\r\n", "\r"}}
	style := styles[r.IntN(len(styles))]
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString(propBOM)
	}
	for i := range n {
		b.WriteString(propPool[r.IntN(len(propPool))])
		if i < n-1 || r.IntN(3) > 0 {
			b.WriteString(style[r.IntN(len(style))])
		}
	}
	return b.String()
}

// genContent draws new_content: 1-3 lines, sent with or without a trailing
// newline (which ends the last line rather than adding an empty one).
func genContent(r *rand.Rand) ([]string, string) {
	cs := make([]string, 1+r.IntN(3))
	for i := range cs {
		cs[i] = propPool[r.IntN(len(propPool))]
	}
	wire := strings.Join(cs, "\n")
	if (len(cs) > 1 && cs[len(cs)-1] == "") || r.IntN(3) == 0 {
		wire += "\n"
	}
	return cs, wire
}

var propTypes = []string{"replace_line", "replace_range", "insert_after", "insert_before", "delete_line", "delete_range"}

func genOp(r *rand.Rand, n int) pop {
	o := pop{typ: propTypes[r.IntN(len(propTypes))], s: 1 + r.IntN(n)}
	o.e = o.s
	if strings.HasSuffix(o.typ, "_range") {
		o.e = min(n, o.s+r.IntN(4))
	}
	if !strings.HasPrefix(o.typ, "delete") {
		o.content, o.wire = genContent(r)
	}
	return o
}

// genBatch draws 1-5 non-overlapping ops, in random order; with clash it
// adds one that overlaps another (same line, or the same insert gap).
func genBatch(r *rand.Rand, n int, clash bool) []pop {
	want := 1 + r.IntN(5)
	var ops []pop
	for try := 0; len(ops) < want && try < 50; try++ {
		o := genOp(r, n)
		if !slices.ContainsFunc(ops, func(p pop) bool { return overlaps(o, p) }) {
			ops = append(ops, o)
		}
	}
	if clash {
		a := ops[r.IntN(len(ops))]
		var o pop
		for {
			o = genOp(r, n)
			if r.IntN(2) == 0 && a.inserts() {
				// The other spelling of a's gap, when it exists.
				switch {
				case a.typ == "insert_after" && a.s < n:
					o.typ, o.s, o.e = "insert_before", a.s+1, a.s+1
				case a.typ == "insert_before" && a.s > 1:
					o.typ, o.s, o.e = "insert_after", a.s-1, a.s-1
				}
				if o.inserts() && o.content == nil {
					o.content, o.wire = genContent(r)
				}
			} else if !strings.HasSuffix(o.typ, "_range") {
				o.s = a.s + r.IntN(a.e-a.s+1)
				o.e = o.s
			} else {
				o.s = a.s
				o.e = min(n, o.s+r.IntN(3))
			}
			if overlaps(o, a) {
				break
			}
		}
		ops = append(ops, o)
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	return ops
}

// wireOps spells ops as an agent would, with refs from lines as last read.
func wireOps(ops []pop, shown []string) []map[string]any {
	ref := func(l int) string { return strconv.Itoa(l) + ":" + hashOf(shown[l-1]) }
	out := make([]map[string]any, len(ops))
	for i, o := range ops {
		m := map[string]any{"type": o.typ}
		if strings.HasSuffix(o.typ, "_range") {
			m["start_ref"], m["end_ref"] = ref(o.s), ref(o.e)
		} else {
			m["ref"] = ref(o.s)
		}
		if o.content != nil {
			m["new_content"] = o.wire
		}
		out[i] = m
	}
	return out
}

// parseAnnotated parses "N:hash|content" lines.
func parseAnnotated(s string) ([]int, []string, []string, error) {
	var ns []int
	var hs, cs []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		num, rest, ok1 := strings.Cut(l, ":")
		h, c, ok2 := strings.Cut(rest, "|")
		k, err := strconv.Atoi(num)
		if !ok1 || !ok2 || err != nil {
			return nil, nil, nil, fmt.Errorf("not a hashline: %q", l)
		}
		ns, hs, cs = append(ns, k), append(hs, h), append(cs, c)
	}
	return ns, hs, cs, nil
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// lineDiff lists the lines (with terminators) where got and want differ.
func lineDiff(got, want string) string {
	g, w := splitTerms(got), splitTerms(want)
	var b strings.Builder
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = fmt.Sprintf("%q", g[i].content+g[i].term)
		}
		if i < len(w) {
			wl = fmt.Sprintf("%q", w[i].content+w[i].term)
		}
		if gl != wl {
			fmt.Fprintf(&b, "  line %d: got %s, want %s\n", i+1, gl, wl)
		}
	}
	return b.String()
}

// TestBatchProperty: random batches through sightline/edit, on open buffers
// and on closed files, checked after every batch against the reference.
// Reproduce one case with -run 'TestBatchProperty/seed=N$'.
func TestBatchProperty(t *testing.T) {
	cases, batches := 200, 8
	if testing.Short() {
		cases = 40
	}
	var mu sync.Mutex
	var total propStats
	t.Run("cases", func(t *testing.T) {
		for seed := range uint64(cases) {
			t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				t.Parallel()
				st := runPropCase(t, seed, batches)
				mu.Lock()
				total.applied += st.applied
				total.noop += st.noop
				total.overlap += st.overlap
				mu.Unlock()
			})
		}
	})
	t.Logf("%d cases: %d batches applied, %d changed nothing, %d refused as overlap",
		cases, total.applied, total.noop, total.overlap)
}

// propStats counts what the batches of a case did.
type propStats struct{ applied, noop, overlap int }

// shownRead is one full read: its lines and the identity of each, so a
// refusal can be traced to an earlier view.
type shownRead struct {
	contents []string
	ids      []int
	reach    int // lines the batches since inserted or deleted, op by op
}

// runPropCase runs one case and counts what its batches did.
func runPropCase(t *testing.T, seed uint64, batches int) (st propStats) {
	r := rand.New(rand.NewPCG(seed, 0x5167))
	text := genFile(r)
	open := r.IntN(2) == 0
	e, root := start(t, map[string]string{"f.txt": text}, lsptest.Options{})
	// Wait for the server to flush its state and exit before the temporary
	// folders go: with many cases in parallel, a flush racing their removal
	// fails the cleanup.
	t.Cleanup(func() { e.Shutdown() })
	u := fileURI(root, "f.txt")
	path := filepath.Join(root, "f.txt")
	if open {
		e.Open(u, "plaintext", text)
	}
	var log strings.Builder
	fmt.Fprintf(&log, "seed %d, open=%v, file %q\n", seed, open, text)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\n--- history:\n%s", fmt.Sprintf(format, args...), log.String())
	}
	current := func() string {
		if open {
			return e.Buffer(u)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			fail("read disk: %v", err)
		}
		return string(b)
	}
	// want is the reference's text; the product must match it byte for byte.
	want := text
	// ids name lines across batches: a line keeps its id while no batch
	// rewrites its bytes.
	_, first := parseText(text)
	ids, nextID := make([]int, len(first)), len(first)
	for i := range ids {
		ids[i] = i
	}
	var reads []shownRead
	for b := 0; b <= batches; b++ {
		got := current()
		if got != want {
			fail("text after batch %d differs from the reference:\ngot  %q\nwant %q\n%s", b, got, want, lineDiff(got, want))
		}
		if open {
			if disk, _ := os.ReadFile(path); string(disk) != text {
				fail("disk written under an open buffer: %q", disk)
			}
		}
		bom, old := parseText(want)
		model := contentsOf(old)
		// The server's snapshot is the same bytes, and a read shows the model.
		rr := read(t, e, u, nil, nil)
		if !rr.OK || rr.FileHash != sha(want) || rr.TotalLines != len(model) || rr.Truncated {
			fail("read after batch %d: %+v hash %s (want %s) lines %d (want %d)", b, rr.Outcome, rr.FileHash, sha(want), rr.TotalLines, len(model))
		}
		if len(model) == 0 {
			return // every line deleted: nothing left to name
		}
		ns, hs, cs, err := parseAnnotated(rr.Content)
		if err != nil || !slices.Equal(cs, model) {
			fail("read content after batch %d (%v):\n%q\nwant lines %q", b, err, rr.Content, model)
		}
		for i := range ns {
			if ns[i] != i+1 || hs[i] != hashOf(model[i]) {
				fail("read line %d is %d:%s, want %d:%s", i+1, ns[i], hs[i], i+1, hashOf(model[i]))
			}
		}
		reads = append(reads, shownRead{contents: model, ids: slices.Clone(ids)})
		if b == batches {
			return
		}

		clash := r.IntN(8) == 0
		ops := genBatch(r, len(model), clash)
		wire := wireOps(ops, model)
		fmt.Fprintf(&log, "batch %d on %q:\n  %s\n", b, want, mustJSON(wire))
		res := edit(t, e, u, wire, nil)
		if clash {
			if res.OK || res.Error != "overlap" {
				fail("overlapping batch %d: %+v, want an overlap refusal", b, res.Outcome)
			}
			st.overlap++
			continue // the loop checks that nothing changed
		}
		if !res.OK {
			fail("batch %d refused: %+v", b, res.Outcome)
		}
		bomAfter, next := apply(bom, old, ops)
		want = render(bomAfter, tlines(next))
		fmt.Fprintf(&log, "  -> %q\n", want)
		if res.Applied != (want != render(bom, old)) {
			fail("batch %d: applied=%v, but the reference %s the text", b, res.Applied, map[bool]string{true: "changes", false: "keeps"}[want != render(bom, old)])
		}
		checkBytes(fail, bom, old, ops, current(), want)
		newIDs := make([]int, len(next))
		for i, m := range next {
			if m.origin > 0 && m.term == old[m.origin-1].term && (i == 0) == (m.origin == 1) {
				newIDs[i] = ids[m.origin-1]
			} else {
				newIDs[i], nextID = nextID, nextID+1
			}
		}
		ids = newIDs
		for i := range reads {
			for _, o := range ops {
				d := len(o.content)
				if !o.inserts() {
					d -= o.e - o.s + 1
				}
				reads[i].reach += max(d, -d)
			}
		}
		if !res.Applied {
			st.noop++
			continue
		}
		st.applied++
		// The window shows lines of the new text with their hashes.
		newModel := contentsOf(tlines(next))
		// (An editor slower than the server's wait gets an answer without a
		// window, and a warning saying so.)
		if len(newModel) > 0 && !(res.WindowRange == nil && len(res.Warnings) > 0) {
			ns, hs, cs, err := parseAnnotated(res.Window)
			if err != nil || res.WindowRange == nil || len(ns) == 0 || ns[0] != res.WindowRange.Start || ns[len(ns)-1] != res.WindowRange.End {
				fail("batch %d window %v %q: %v", b, res.WindowRange, res.Window, err)
			}
			for i, k := range ns {
				if k < 1 || k > len(newModel) || cs[i] != newModel[k-1] || hs[i] != hashOf(newModel[k-1]) || (i > 0 && k != ns[i-1]+1) {
					fail("batch %d window line %d:%s|%q, want line %d of %q", b, k, hs[i], cs[i], k, newModel)
				}
			}
		}
		// Every line the batch wrote is the session's own, and nothing is stale.
		var led engine.LedgerResult
		if err := e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &led); err != nil || len(led.Documents) != 1 {
			fail("ledger: %v %+v", err, led)
		}
		d := led.Documents[0]
		if len(d.Stale) != 0 || d.TotalLines != len(newModel) {
			fail("ledger after batch %d: %s", b, mustJSON(d))
		}
		in := func(rs []ledger.Range, l int) bool {
			return slices.ContainsFunc(rs, func(a ledger.Range) bool { return a.Start <= l && l <= a.End })
		}
		for i, m := range next {
			if !m.written || in(d.Authored, i+1) {
				continue
			}
			// The server finds its own edit's lines by their bytes (identical
			// lines are trimmed off each change), so a written line
			// byte-identical to an old line beside it keeps that line's
			// identity, and its read state, rather than becoming authored.
			if in(d.Read, i+1) && slices.Contains(old, m.tline) {
				continue
			}
			fail("batch %d wrote line %d, but authored is %v (ledger %s)", b, i+1, d.Authored, mustJSON(d))
		}
	}
	return
}

// checkBytes asserts the byte rules on the product's text directly, so a
// failure names the rule broken, then compares it with the reference.
func checkBytes(fail func(string, ...any), bom bool, old []tline, ops []pop, got, want string) {
	gb, gl := parseText(got)
	_, next := apply(bom, old, ops)
	if gc, wc := contentsOf(gl), contentsOf(tlines(next)); !slices.Equal(gc, wc) {
		fail("line contents differ from the model:\ngot  %q\nwant %q", gc, wc)
	}
	dom := dominantTerm(old)
	if len(gl) > 0 {
		if gb != bom {
			fail("mark before %v, after %v", bom, gb)
		}
		// The final-newline state is kept, but an empty last line keeps a
		// terminator (it would vanish without one).
		oldFinal, last := old[len(old)-1].term != "", gl[len(gl)-1]
		if (last.term != "") != oldFinal && !(last.content == "" && last.term != "") {
			fail("final newline was %v, the last line now ends in %q", oldFinal, last.term)
		}
	} else if got != "" {
		fail("no lines left, but %q", got)
	}
	// joined: the "\r" + empty "\n" rule may give either line "\r\n".
	joined := func(i int) bool {
		return gl[i].term == "\r\n" && (gl[i].content == "" && i > 0 && gl[i-1].term == "\r" ||
			i+1 < len(gl) && gl[i+1].content == "" && gl[i+1].term == "\n")
	}
	lastLine := func(i int) bool { return i == len(gl)-1 }
	for i, m := range next {
		g := gl[i]
		switch {
		case m.origin > 0:
			// Untouched lines keep their terminator, but for the final
			// newline rule (the old last line, or the new last line).
			if g.term != old[m.origin-1].term && !lastLine(i) && m.origin != len(old) && !joined(i) {
				fail("untouched old line %d (now %d) changed its terminator %q to %q", m.origin, i+1, old[m.origin-1].term, g.term)
			}
		case m.replace:
			if g.term != m.ends && !lastLine(i) && !joined(i) && !(m.ends == "" && g.term == dom) {
				fail("line %d replaces a line that ended in %q, but ends in %q", i+1, m.ends, g.term)
			}
		default:
			if g.term != dom && !lastLine(i) && !joined(i) {
				fail("new line %d ends in %q; the dominant terminator is %q", i+1, g.term, dom)
			}
		}
	}
	if got != want {
		fail("text differs from the reference:\ngot  %q\nwant %q\n%s", got, want, lineDiff(got, want))
	}
}
