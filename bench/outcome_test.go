package main

// The agent-outcome benchmark (issue 14): real code with a mechanical bug,
// a simulated agent that fixes it through each of sightline's edit styles
// while making the mistakes real agents make, and a count of what happened:
// the fix landed correctly, the call was refused without changing anything,
// or something else was written (landed wrong). A refusal costs turns: the
// agent re-reads and tries again, without the mistake, until the fix lands.
//
//	go test ./bench -run Outcome -v

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/textdoc"
)

// Edit styles.
const (
	styleStrReplace = "str_replace (`sightline/write` mode edit)"
	styleBlocks     = "edit blocks (`sightline/applyBlocks`)"
	styleHashline   = "hashline (`sightline/edit`)"
	styleAcross     = "hashline across versions (the user typed after the read)"
	styleNaive      = "reference: naive str_replace (first match, whitespace-tolerant fallback; no guard)"
)

var outcomeStyles = []string{styleStrReplace, styleBlocks, styleHashline, styleAcross, styleNaive}

// Failure modes of the simulated agent.
const (
	modeNone      = "none"
	modeStale     = "stale line numbers after its own edit"
	modeTyped     = "user typed between read and edit"
	modeDrift     = "whitespace drift in old_text"
	modeTruncated = "truncated read (edits a line it was not shown)"
	modeEcho      = "echoed hashline prefixes in new content"
	modeDup       = "duplicate lines (old text or stale ref not unique)"
)

var outcomeModes = []string{modeNone, modeStale, modeTyped, modeDrift, modeTruncated, modeEcho, modeDup}

// applies says whether a mode means something for a style (whitespace drift
// is a mistake in old_text, which hashline edits do not have).
func applies(style, mode string) bool {
	hashStyle := style == styleHashline || style == styleAcross
	return !(hashStyle && mode == modeDrift)
}

type fixture struct {
	name  string
	lines []string // without terminators; the file ends in "\n"
}

func loadFixtures(t *testing.T) []fixture {
	goroot := runtime.GOROOT()
	paths := []struct{ name, path string }{
		{"go/src/strings/strings.go", filepath.Join(goroot, "src/strings/strings.go")},
		{"go/src/net/http/server.go", filepath.Join(goroot, "src/net/http/server.go")},
		{"testdata/realworld/sched.py", "../testdata/realworld/sched.py"},
		{"testdata/realworld/heapq.py", "../testdata/realworld/heapq.py"},
		{"testdata/realworld/textwrap.py", "../testdata/realworld/textwrap.py"},
		{"testdata/realworld/shlex.py", "../testdata/realworld/shlex.py"},
		{"testdata/realworld/zod/util.ts", "../testdata/realworld/zod/util.ts"},
		{"testdata/realworld/zod/checks.ts", "../testdata/realworld/zod/checks.ts"},
	}
	var fs []fixture
	for _, p := range paths {
		b, err := os.ReadFile(p.path)
		if err != nil {
			t.Logf("fixture %s: %v (skipped)", p.name, err)
			continue
		}
		s := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
		fs = append(fs, fixture{p.name, strings.Split(s, "\n")})
	}
	if len(fs) == 0 {
		t.Skip("no fixtures")
	}
	return fs
}

// languageID is the LSP language id an editor would open the file with.
func languageID(path string) string {
	switch filepath.Ext(path) {
	case ".py":
		return "python"
	case ".ts":
		return "typescript"
	}
	return "go"
}

// Mutations: each takes the original lines and a line index and returns the
// broken lines, or nil when it does not apply there.
var (
	opSwaps = [][2]string{{" == ", " != "}, {" != ", " == "}, {" <= ", " < "}, {" >= ", " > "}, {" < ", " <= "}, {" > ", " >= "}, {" && ", " || "}, {" || ", " && "}, {" + ", " - "}, {" - ", " + "}}
	boolRe  = regexp.MustCompile(`\b(true|false|True|False)\b`)
	numRe   = regexp.MustCompile(`\b[0-9]+\b`)
)

type mutation struct {
	name string
	f    func(o []string, i int) []string
}

func replaceLine(o []string, i int, s string) []string {
	b := slices.Clone(o)
	b[i] = s
	return b
}

func code(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "#") && len(t) > 3
}

var mutations = []mutation{
	{"operator swap", func(o []string, i int) []string {
		if !code(o[i]) {
			return nil
		}
		for _, sw := range opSwaps {
			if strings.Contains(o[i], sw[0]) {
				return replaceLine(o, i, strings.Replace(o[i], sw[0], sw[1], 1))
			}
		}
		return nil
	}},
	{"flipped boolean", func(o []string, i int) []string {
		m := boolRe.FindStringIndex(o[i])
		if m == nil || !code(o[i]) {
			return nil
		}
		w := o[i][m[0]:m[1]]
		flip := map[string]string{"true": "false", "false": "true", "True": "False", "False": "True"}[w]
		return replaceLine(o, i, o[i][:m[0]]+flip+o[i][m[1]:])
	}},
	{"off by one", func(o []string, i int) []string {
		m := numRe.FindStringIndex(o[i])
		if m == nil || !code(o[i]) {
			return nil
		}
		n, err := strconv.Atoi(o[i][m[0]:m[1]])
		if err != nil {
			return nil
		}
		return replaceLine(o, i, o[i][:m[0]]+strconv.Itoa(n+1)+o[i][m[1]:])
	}},
	{"swapped lines", func(o []string, i int) []string {
		if i+1 >= len(o) || !code(o[i]) || !code(o[i+1]) || o[i] == o[i+1] {
			return nil
		}
		b := slices.Clone(o)
		b[i], b[i+1] = b[i+1], b[i]
		return b
	}},
	{"duplicated line", func(o []string, i int) []string {
		if !code(o[i]) {
			return nil
		}
		return slices.Insert(slices.Clone(o), i+1, o[i])
	}},
	{"deleted statement", func(o []string, i int) []string {
		if !code(o[i]) || strings.HasSuffix(strings.TrimSpace(o[i]), "{") || strings.TrimSpace(o[i]) == "}" {
			return nil
		}
		return slices.Delete(slices.Clone(o), i, i+1)
	}},
}

// region is the fix: lines [start, start+n) of the broken text become repl.
type region struct {
	start, n int
	repl     []string
}

// diffRegion finds the one changed region between broken and fixed lines.
func diffRegion(b, o []string) region {
	s := 0
	for s < len(b) && s < len(o) && b[s] == o[s] {
		s++
	}
	t := 0
	for t < len(b)-s && t < len(o)-s && b[len(b)-1-t] == o[len(o)-1-t] {
		t++
	}
	return region{s, len(b) - t - s, slices.Clone(o[s : len(o)-t])}
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// tally is one row of the table.
type tally struct {
	trials, landed, refused, wrong int
	refusedFirst, extraTurns       int // trials refused at first, and the calls they took until landed
	neverLanded                    int
}

// outcomeTrial is one agent fixing one bug.
type outcomeTrial struct {
	t      *testing.T
	style  string
	mode   string
	rng    *rand.Rand
	env    *engine.Env
	uri    string
	path   string
	cur    []string // the document now
	want   []string // what it must become
	reg    region   // the fix, in cur's numbering
	naive  bool
	commnt string
}

func (tr *outcomeTrial) text() string {
	if tr.naive {
		return joinLines(tr.cur)
	}
	d, err := tr.env.WS.Lookup(tr.uri)
	if err != nil {
		tr.t.Fatal(err)
	}
	return d.Snap.Text()
}

// read returns what the agent was shown: lines with their refs. budget 0
// reads everything.
func (tr *outcomeTrial) read(budget int) {
	if tr.naive {
		return
	}
	p := engine.ReadParams{TextDocument: engine.TextDocument{URI: tr.uri}}
	if budget == 0 {
		budget = 1 << 30
	}
	p.Budget = &struct {
		Chars int `json:"chars"`
	}{budget}
	res, err := tr.env.Read(context.Background(), p)
	if err != nil || !res.OK {
		tr.t.Fatalf("read: %v %+v", err, res.Outcome)
	}
}

// userTypes inserts two lines above the fix (both in the document and in
// what it must become) and, when conflict, changes the line right above the
// fix region, one the agent's old text includes as context.
func (tr *outcomeTrial) userTypes(conflict bool) {
	// Above the line before the fix, so that line stays next to it (an
	// insertion between the two would make "after that line" ambiguous).
	at := tr.rng.IntN(max(1, tr.reg.start))
	ins := []string{tr.commnt + " typed by the user", ""}
	tr.change(at, 0, ins)
	tr.want = slices.Insert(tr.want, at, ins...)
	tr.reg.start += len(ins)
	if conflict && tr.reg.start > 0 {
		i := tr.reg.start - 1
		nl := tr.cur[i] + " " + tr.commnt + " edited"
		if strings.TrimSpace(tr.cur[i]) == "" {
			nl = tr.commnt + " edited"
		}
		tr.change(i, 1, []string{nl})
		tr.want[i] = nl
	}
}

// change replaces n lines at line index at of the document with ls, as the
// user's editor would (a didChange).
func (tr *outcomeTrial) change(at, n int, ls []string) {
	tr.cur = slices.Concat(tr.cur[:at], ls, tr.cur[at+n:])
	if tr.naive {
		return
	}
	d, _ := tr.env.WS.Lookup(tr.uri)
	r := textdoc.Range{Start: textdoc.Pos{Line: uint32(at)}, End: textdoc.Pos{Line: uint32(at + n)}}
	if _, err := tr.env.WS.Change(tr.uri, d.Version+1, []textdoc.Change{{Range: &r, Text: joinLines(ls)}}, textdoc.UTF8, ""); err != nil {
		tr.t.Fatal(err)
	}
}

func ref(view []string, i int) string {
	return strconv.Itoa(i+1) + ":" + hashline.Hash(view[i])
}

// attempt makes one edit call from the agent's view (the lines it believes,
// numbered as it believes) with the mode's mistake; it reports whether the
// call said it applied.
func (tr *outcomeTrial) attempt(view []string, reg region, mode string) bool {
	ctx := context.Background()
	newLines := slices.Clone(reg.repl)
	if mode == modeEcho {
		for i, l := range newLines {
			newLines[i] = ref(append(slices.Clone(view[:reg.start]), newLines...), reg.start+i) + "|" + l
		}
	}
	switch tr.style {
	case styleHashline, styleAcross:
		var ed map[string]any
		nc := strings.Join(newLines, "\n")
		switch {
		case reg.n == 0 && reg.start == 0:
			ed = map[string]any{"type": "insert_before", "ref": ref(view, 0), "new_content": nc}
		case reg.n == 0:
			ed = map[string]any{"type": "insert_after", "ref": ref(view, reg.start-1), "new_content": nc}
		case len(newLines) == 0:
			ed = map[string]any{"type": "delete_range", "start_ref": ref(view, reg.start), "end_ref": ref(view, reg.start+reg.n-1)}
		default:
			ed = map[string]any{"type": "replace_range", "start_ref": ref(view, reg.start), "end_ref": ref(view, reg.start+reg.n-1), "new_content": nc}
		}
		edits, _ := json.Marshal([]any{ed})
		res, err := tr.env.Edit(ctx, engine.EditParams{TextDocument: engine.TextDocument{URI: tr.uri}, Edits: edits})
		if err != nil {
			tr.t.Fatal(err)
		}
		return res.OK
	}
	// Text-matching styles: old text is the region plus context, grown until
	// unique (a careful agent), or the region alone (modeDup).
	lo, hi := reg.start, reg.start+reg.n
	if mode == modeDup {
		if lo == hi {
			lo--
		}
	} else {
		lo, hi = max(0, lo-1), min(len(view), hi+1)
		for k := 0; k < 5 && strings.Count(joinLines(view), joinLines(view[lo:hi])) > 1; k++ {
			lo, hi = max(0, lo-1), min(len(view), hi+1)
		}
	}
	oldL := slices.Clone(view[lo:hi])
	newL := slices.Concat(view[lo:reg.start], newLines, view[reg.start+reg.n:hi])
	if mode == modeDrift {
		for i, l := range oldL {
			t := strings.TrimLeft(l, "\t")
			if k := len(l) - len(t); k > 0 {
				oldL[i] = strings.Repeat("    ", k) + t
			} else if l != "" {
				oldL[i] = l + " "
			}
		}
	}
	oldText, newText := joinLines(oldL), joinLines(newL)
	switch tr.style {
	case styleStrReplace:
		res, err := tr.env.Write(ctx, engine.WriteParams{TextDocument: engine.TextDocument{URI: tr.uri}, Mode: "edit", OldText: &oldText, Content: &newText})
		if err != nil {
			tr.t.Fatal(err)
		}
		return res.OK
	case styleBlocks:
		var b strings.Builder
		fmt.Fprintf(&b, "Fix:\n\n%s\n<<<< EDIT\n%s==== REPLACE\n%s>>>> EDIT END\n", tr.path, oldText, newText)
		res, err := tr.env.ApplyBlocks(ctx, engine.BlocksParams{Text: b.String()})
		if err != nil {
			tr.t.Fatal(err)
		}
		return res.OK && len(res.Blocks) == 1 && res.Blocks[0].Status == "applied"
	case styleNaive:
		return tr.naiveReplace(oldText, newText)
	}
	panic(tr.style)
}

// naiveReplace is str_replace as most file tools do it: the first exact
// occurrence, else the first run of lines equal after trimming whitespace;
// no read guard, no ambiguity check.
func (tr *outcomeTrial) naiveReplace(oldText, newText string) bool {
	text := joinLines(tr.cur)
	if i := strings.Index(text, oldText); i >= 0 {
		text = text[:i] + newText + text[i+len(oldText):]
		tr.cur = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		return true
	}
	old := strings.Split(strings.TrimSuffix(oldText, "\n"), "\n")
	for i := 0; i+len(old) <= len(tr.cur); i++ {
		ok := true
		for j := range old {
			if strings.TrimSpace(tr.cur[i+j]) != strings.TrimSpace(old[j]) {
				ok = false
				break
			}
		}
		if ok {
			nl := strings.Split(strings.TrimSuffix(newText, "\n"), "\n")
			if newText == "" {
				nl = nil
			}
			tr.cur = slices.Concat(tr.cur[:i], nl, tr.cur[i+len(old):])
			return true
		}
	}
	return false
}

// runTrial: the agent fixes one bug; it returns the first call's outcome
// ("landed", "refused", "wrong") and the calls it took until the fix landed
// (0 when it never did within 4).
func runTrial(t *testing.T, style, mode string, fx fixture, broken []string, seed uint64) (string, int) {
	tr := &outcomeTrial{t: t, style: style, mode: mode, rng: rand.New(rand.NewPCG(seed, 14)), naive: style == styleNaive}
	tr.commnt = "//"
	if strings.HasSuffix(fx.name, ".py") {
		tr.commnt = "#"
	}
	tr.cur = slices.Clone(broken)
	tr.want = slices.Clone(fx.lines)
	tr.reg = diffRegion(broken, fx.lines)
	if !tr.naive {
		root := t.TempDir()
		ed := &lsptest.BufferEditor{Fast: true}
		tr.env = engine.Setup(context.Background(), engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true, Editor: ed})
		ed.WS = tr.env.WS
		defer tr.env.Close(context.Background())
		tr.path = filepath.Join(root, filepath.Base(fx.name))
		tr.uri = "file://" + tr.path
		if _, err := tr.env.WS.Open(tr.uri, languageID(tr.path), 1, joinLines(tr.cur)); err != nil {
			t.Fatal(err)
		}
	}
	tr.read(0)
	view := slices.Clone(tr.cur)
	reg := tr.reg
	if mode == modeStale || (mode == modeDup && (style == styleHashline || style == styleAcross)) {
		// The agent's own edit above the fix lands (one line inserted); it
		// goes on with the numbers of its read.
		at := tr.rng.IntN(tr.reg.start + 1)
		if tr.reg.n == 0 && at == tr.reg.start && at > 0 {
			// When the fix is an insertion, a note right where it goes
			// leaves two right answers: the note before the restored line or
			// after it (an insert_after lands right after its line). The
			// note goes above the fix's anchor line instead, as userTypes
			// does for the user's lines.
			at--
		}
		note := tr.commnt + " note by the agent"
		var call bool
		if tr.naive {
			tr.change(at, 0, []string{note})
			call = true
		} else {
			edits, _ := json.Marshal([]map[string]string{{"type": "insert_before", "ref": ref(tr.cur, at), "new_content": note}})
			if at == len(tr.cur) {
				edits, _ = json.Marshal([]map[string]string{{"type": "insert_after", "ref": ref(tr.cur, at-1), "new_content": note}})
			}
			res, err := tr.env.Edit(context.Background(), engine.EditParams{TextDocument: engine.TextDocument{URI: tr.uri}, Edits: edits})
			call = err == nil && res.OK
			tr.cur = slices.Insert(tr.cur, at, note)
		}
		if !call || tr.text() != joinLines(tr.cur) {
			t.Fatalf("the agent's own edit did not land")
		}
		tr.want = slices.Insert(tr.want, at, note)
		tr.reg.start++
	}
	if mode == modeTruncated {
		// The read stopped well above the fix; the agent has the lines from
		// elsewhere (a grep) and edits anyway.
		tr.env = resetLedger(t, tr)
		chars := 0
		for _, l := range tr.cur[:max(0, tr.reg.start-3)] {
			chars += len(l) + 12
		}
		if chars > 0 {
			tr.read(chars)
		}
	}
	if style == styleAcross {
		tr.userTypes(false)
	}
	if mode == modeTyped {
		tr.userTypes(tr.rng.IntN(2) == 0)
	}
	first := ""
	for call := 1; call <= 4; call++ {
		before := tr.text()
		ok := tr.attempt(view, reg, mode)
		after := tr.text()
		switch {
		case ok && after == joinLines(tr.want):
			if first == "" {
				first = "landed"
			}
			return first, call
		case !ok && after == before:
			if first == "" {
				first = "refused"
			}
		default:
			if first == "" {
				first = "wrong"
			}
			if os.Getenv("SIGHTLINE_OUTCOME_DEBUG") != "" {
				t.Logf("%s / %s / %s call %d ok=%v reg=%+v\n%s", style, mode, fx.name, call, ok, reg, lineDiff(joinLines(tr.want), after))
			}
			return first, 0
		}
		// Turn: the agent re-reads and tries again without the mistake.
		tr.read(0)
		view, reg, mode = slices.Clone(tr.cur), tr.reg, modeNone
	}
	return first, 0
}

// resetLedger gives the trial a fresh environment with the same open
// document and nothing read, for the truncated-read mode.
func resetLedger(t *testing.T, tr *outcomeTrial) *engine.Env {
	if tr.naive {
		return nil
	}
	tr.env.Close(context.Background())
	ed := &lsptest.BufferEditor{Fast: true}
	env := engine.Setup(context.Background(), engine.Options{Roots: []string{filepath.Dir(tr.path)}, Config: config.Default(), NoPersist: true, Editor: ed})
	ed.WS = env.WS
	if _, err := env.WS.Open(tr.uri, languageID(tr.path), 1, joinLines(tr.cur)); err != nil {
		t.Fatal(err)
	}
	return env
}

// TestOutcome runs every style against every mode on bugs planted in real
// code, prints the table (the one in docs/performance.md) and fails when a
// sightline path landed a wrong edit.
func TestOutcome(t *testing.T) {
	fixtures := loadFixtures(t)
	perMutation := 3
	if testing.Short() {
		perMutation = 1
	}
	type bug struct {
		fx     fixture
		broken []string
		dupOK  bool // the fix's old text alone occurs more than once
	}
	rng := rand.New(rand.NewPCG(14, 14))
	var bugs []bug
	for _, fx := range fixtures {
		for _, m := range mutations {
			found, dups := 0, 0
			for try := 0; try < 4000 && (found < perMutation || dups < perMutation); try++ {
				i := rng.IntN(len(fx.lines))
				b := m.f(fx.lines, i)
				if b == nil {
					continue
				}
				reg := diffRegion(b, fx.lines)
				lo, hi := reg.start, reg.start+reg.n
				if lo == hi {
					if lo == 0 {
						continue
					}
					lo--
				}
				dup := strings.Count(joinLines(b), joinLines(b[lo:hi])) > 1
				if dup && dups < perMutation {
					dups++
					bugs = append(bugs, bug{fx, b, true})
				} else if !dup && found < perMutation {
					found++
					bugs = append(bugs, bug{fx, b, false})
				}
			}
		}
	}
	rows := map[[2]string]*tally{}
	for _, style := range outcomeStyles {
		for _, mode := range outcomeModes {
			if !applies(style, mode) {
				continue
			}
			tl := &tally{}
			rows[[2]string{style, mode}] = tl
			for bi, b := range bugs {
				// Duplicate mode takes the bugs whose old text repeats; the
				// others the bugs whose context makes it unique.
				if (mode == modeDup) != b.dupOK {
					continue
				}
				first, calls := runTrial(t, style, mode, b.fx, b.broken, uint64(bi))
				tl.trials++
				switch first {
				case "landed":
					tl.landed++
				case "refused":
					tl.refused++
					if calls > 0 {
						tl.refusedFirst++
						tl.extraTurns += calls - 1
					} else {
						tl.neverLanded++
					}
				default:
					tl.wrong++
				}
			}
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%d planted bugs (%d mutations × %d fixtures, each placed where the fix's old text is unique and where it is not); after a refusal the agent re-reads and retries without the mistake.\n\n", len(bugs), len(mutations), len(fixtures))
	fmt.Fprintf(&out, "| edit style | agent's mistake | trials | landed correctly | refused cleanly | landed wrong | turns a refusal costs |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	total := map[string]*tally{}
	for _, style := range outcomeStyles {
		total[style] = &tally{}
		for _, mode := range outcomeModes {
			tl := rows[[2]string{style, mode}]
			if tl == nil {
				continue
			}
			tt := total[style]
			tt.trials, tt.landed, tt.refused, tt.wrong = tt.trials+tl.trials, tt.landed+tl.landed, tt.refused+tl.refused, tt.wrong+tl.wrong
			tt.refusedFirst, tt.extraTurns, tt.neverLanded = tt.refusedFirst+tl.refusedFirst, tt.extraTurns+tl.extraTurns, tt.neverLanded+tl.neverLanded
			fmt.Fprintf(&out, "| %s | %s | %d | %d | %d | %d | %s |\n", style, mode, tl.trials, tl.landed, tl.refused, tl.wrong, turns(tl))
		}
	}
	fmt.Fprintf(&out, "\nTotals:\n\n| edit style | trials | landed correctly | refused cleanly | landed wrong | turns a refusal costs |\n| --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, style := range outcomeStyles {
		tt := total[style]
		fmt.Fprintf(&out, "| %s | %d | %d | %d | %d | %s |\n", style, tt.trials, tt.landed, tt.refused, tt.wrong, turns(tt))
	}
	t.Log("\n" + out.String())
	if p := os.Getenv("SIGHTLINE_OUTCOME_TABLE"); p != "" {
		os.WriteFile(p, []byte(out.String()), 0o644)
	}
	for _, style := range outcomeStyles {
		if style != styleNaive && total[style].wrong != 0 {
			t.Errorf("%s: %d edits landed wrong", style, total[style].wrong)
		}
	}
}

func turns(tl *tally) string {
	if tl.refused == 0 {
		return "—"
	}
	s := "—"
	if tl.refusedFirst > 0 {
		s = fmt.Sprintf("%.1f", float64(tl.extraTurns)/float64(tl.refusedFirst))
	}
	if tl.neverLanded > 0 {
		s += fmt.Sprintf(" (%d never landed)", tl.neverLanded)
	}
	return s
}

// lineDiff shows the lines where got differs from want (debugging).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	r := diffRegion(g, w)
	return fmt.Sprintf("at line %d: want %q\ngot %q", r.start+1, r.repl, g[r.start:r.start+r.n])
}
