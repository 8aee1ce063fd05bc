package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// simLine is a line of the simulated world: an identity and its content.
type simLine struct {
	id      int
	content string
}

// The agent's memory styles: how it numbers the lines it remembers.
const (
	keepShown = "keeps the numbers it was shown"
	renumber  = "renumbers after its own edits"
	firstRead = "keeps the numbers of its last full read"
)

// TestSimulatedAgentNeverEditsTheWrongLine: an agent edits (replaces,
// inserts, deletes) lines it remembers while a user inserts, deletes and
// changes lines it does not see, with many duplicate lines ("}", blank,
// "return nil"). Two memory styles: one keeps the numbers it was shown, one
// renumbers its memory after each of its own edits (not after the user's
// typing, which it does not see). Every accepted edit must land exactly
// where the agent meant; refusals are fine, a wrong landing never is.
func TestSimulatedAgentNeverEditsTheWrongLine(t *testing.T) {
	steps := 4000
	if testing.Short() {
		steps = 800
	}
	if raceOn {
		steps = 200
	}
	for _, style := range []string{keepShown, renumber, firstRead} {
		var landed, refused, wrong int
		for seed := uint64(1); seed <= 3; seed++ {
			l, r, w := simulate(t, style, seed, steps)
			landed, refused, wrong = landed+l, refused+r, wrong+w
			if l < steps/50 {
				t.Fatalf("%s, seed %d: only %d edits landed: the simulation tests nothing", style, seed, l)
			}
		}
		t.Logf("agent that %s: %d steps: landed %d, refused %d, wrong %d", style, 3*steps, landed, refused, wrong)
		if wrong != 0 {
			t.Fatalf("agent that %s: %d edits landed on the wrong line", style, wrong)
		}
	}
}

// belief is what the agent remembers of a line: the number it would name it
// by, and its hash.
type belief struct {
	line int
	hash string
}

func simulate(t *testing.T, style string, seed uint64, steps int) (landed, refused, wrong int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	root := t.TempDir()
	ed := &lsptest.BufferEditor{}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true, Editor: ed})
	ed.WS = env.WS
	pool := []string{"}", "", "\treturn nil", "if err != nil {", "x := 1", "// note"}
	nextID := 0
	var world []simLine
	for i := 0; i < 60; i++ {
		nextID++
		world = append(world, simLine{nextID, pool[rng.IntN(len(pool))]})
	}
	text := func() string {
		var b strings.Builder
		for _, l := range world {
			b.WriteString(l.content + "\n")
		}
		return b.String()
	}
	u := string(workspace.FromPath(filepath.Join(root, "main.go")))
	if _, err := env.WS.Open(u, "go", 1, text()); err != nil {
		t.Fatal(err)
	}
	version := int32(1)
	memory := map[int]belief{} // line id → what the agent believes
	var rememberAll func(string)
	refusals := map[string]int{}
	defer func() { t.Logf("%s seed %d refusals %v", style, seed, refusals) }()
	var history []string
	// remember takes what the agent was shown: each shown line's number
	// names its line in the current world.
	remember := func(content string) {
		if style == firstRead {
			return
		}
		rememberAll(content)
	}
	fullRead := func() {
		memory = map[int]belief{}
		res, err := env.Read(context.Background(), engine.ReadParams{TextDocument: engine.TextDocument{URI: u}})
		if err != nil || !res.OK {
			t.Fatalf("read: %v %+v", err, res.Outcome)
		}
		rememberAll(res.Content)
	}
	_ = fullRead
	rememberAll = func(content string) {
		for _, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
			ref, _, ok := strings.Cut(l, "|")
			if !ok {
				continue
			}
			n, _ := strconv.Atoi(ref[:strings.IndexByte(ref, ':')])
			memory[world[n-1].id] = belief{n, ref[strings.IndexByte(ref, ':')+1:]}
		}
	}
	userChange := func(r textdoc.Range, newText string) {
		version++
		if _, err := env.WS.Change(u, version, []textdoc.Change{{Range: &r, Text: newText}}, textdoc.UTF8, ""); err != nil {
			t.Fatal(err)
		}
	}
	// shift renumbers the agent's memory after its own edit: lines below
	// line at moved by delta (the renumbering style only).
	shift := func(at, delta int) {
		for id, b := range memory {
			if b.line > at {
				b.line += delta
				memory[id] = b
			}
		}
	}
	fullRead()
	for step := 0; step < steps; step++ {
		switch k := rng.IntN(10); {
		case k < 3: // the user types
			i := rng.IntN(len(world) + 1)
			switch rng.IntN(3) {
			case 0: // insert a line
				nextID++
				l := simLine{nextID, pool[rng.IntN(len(pool))]}
				world = slices.Insert(world, i, l)
				history = append(history, fmt.Sprintf("%d: user inserts id %d %q at line %d", step, l.id, l.content, i+1))
				userChange(textdoc.Range{Start: textdoc.Pos{Line: uint32(i)}, End: textdoc.Pos{Line: uint32(i)}}, l.content+"\n")
			case 1: // delete a line
				if i == len(world) || len(world) < 10 {
					continue
				}
				history = append(history, fmt.Sprintf("%d: user deletes id %d %q at line %d", step, world[i].id, world[i].content, i+1))
				world = slices.Delete(world, i, i+1)
				userChange(textdoc.Range{Start: textdoc.Pos{Line: uint32(i)}, End: textdoc.Pos{Line: uint32(i + 1)}}, "")
			default: // change a line (same identity, new content)
				if i == len(world) {
					continue
				}
				old := world[i].content
				world[i].content = pool[rng.IntN(len(pool))]
				history = append(history, fmt.Sprintf("%d: user changes id %d at line %d %q -> %q", step, world[i].id, i+1, old, world[i].content))
				userChange(textdoc.Range{Start: textdoc.Pos{Line: uint32(i)}, End: textdoc.Pos{Line: uint32(i), Char: uint32(len(old))}}, world[i].content)
			}
		case k < 4:
			fullRead()
		default: // the agent edits a line it remembers
			if len(memory) == 0 {
				fullRead()
				continue
			}
			ids := make([]int, 0, len(memory))
			for id := range memory {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			meant := ids[rng.IntN(len(ids))]
			b := memory[meant]
			ref := fmt.Sprintf("%d:%s", b.line, b.hash)
			op := []string{"replace_line", "insert_after", "insert_before", "delete_line"}[rng.IntN(4)]
			content := pool[rng.IntN(len(pool))]
			if rng.IntN(2) == 0 {
				content = fmt.Sprintf("edit %d", step)
			}
			ed := map[string]string{"type": op, "ref": ref}
			if op != "delete_line" {
				ed["new_content"] = content
			}
			if op == "delete_line" && len(world) < 20 {
				continue
			}
			edits, _ := json.Marshal([]map[string]string{ed})
			before := text()
			res, err := env.Edit(context.Background(), engine.EditParams{TextDocument: engine.TextDocument{URI: u}, Edits: edits})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := env.WS.Lookup(u)
			version = d.Version
			if !res.OK {
				refused++
				refusals[string(res.Error)]++
				// A refusal the agent could not avoid: the line it meant is gone or
				// no longer holds what it saw.
				if i := slices.IndexFunc(world, func(l simLine) bool { return l.id == meant }); i < 0 || hashOf(world[i].content) != b.hash {
					refusals["of which the meant line changed or vanished"]++
				}
				if d.Snap.Text() != before {
					t.Fatalf("step %d: refused edit changed the text", step)
				}
				delete(memory, meant)
				for _, refs := range [][]string{res.FreshRefs, {res.Expanded}} {
					remember(strings.Join(refs, "\n"))
				}
				continue
			}
			// What the agent meant: the op at the line with id meant.
			at := slices.IndexFunc(world, func(l simLine) bool { return l.id == meant })
			if at < 0 {
				for _, h := range history[max(0, len(history)-40):] {
					t.Log(h)
				}
				t.Fatalf("step %d: line id %d is gone but the edit of ref %s was accepted; remapped %+v", step, meant, ref, res.Remapped)
			}
			want := slices.Clone(world)
			nextID++
			added := simLine{nextID, content}
			switch op {
			case "replace_line":
				want[at].content = content
			case "insert_after":
				want = slices.Insert(want, at+1, added)
			case "insert_before":
				want = slices.Insert(want, at, added)
			case "delete_line":
				want = slices.Delete(want, at, at+1)
			}
			got := d.Snap.Text()
			var wb strings.Builder
			for _, l := range want {
				wb.WriteString(l.content + "\n")
			}
			if got != wb.String() {
				wrong++
				t.Errorf("%s, seed %d, step %d: %s of ref %s meant line id %d (line %d now); remapped %+v; the text is not what it meant", style, seed, step, op, ref, meant, at+1, res.Remapped)
				for _, h := range history[max(0, len(history)-15):] {
					t.Log(h)
				}
				return landed, refused, wrong
			}
			landed++
			history = append(history, fmt.Sprintf("%d: agent %s id %d at line %d (ref %s)", step, op, meant, at+1, ref))
			world = want
			if style == renumber {
				// The agent renumbers what it remembers by its own edit, in its
				// own numbering.
				switch op {
				case "replace_line":
					memory[meant] = belief{b.line, hashOf(content)}
				case "insert_after":
					shift(b.line, 1)
					memory[added.id] = belief{b.line + 1, hashOf(content)}
				case "insert_before":
					shift(b.line-1, 1)
					memory[added.id] = belief{b.line, hashOf(content)}
				case "delete_line":
					delete(memory, meant)
					shift(b.line, -1)
				}
			} else {
				delete(memory, meant)
			}
			if res.WindowRange != nil {
				remember(res.Window)
			}
		}
		checkSync(t, env, u, text())
	}
	return landed, refused, wrong
}

func hashOf(s string) string {
	return hashline.Hash(s)
}

func checkSync(t *testing.T, env *engine.Env, u, want string) {
	t.Helper()
	d, _ := env.WS.Lookup(u)
	if got := d.Snap.Text(); got != want {
		t.Fatalf("server text diverged from the simulated world")
	}
}

// TestRefAfterLongTyping: a line the user changed, then hundreds of
// keystrokes (each a revision) elsewhere, then a re-read: the ref from the
// re-read resolves: the first read showed another line there, so it is not
// the ref's source, whether its text is still kept or not. (Before, a view
// whose text had been dropped after 256 revisions made every later ref to
// that line stale.)
func TestRefAfterLongTyping(t *testing.T) {
	root := t.TempDir()
	ed := &lsptest.BufferEditor{}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true, Editor: ed})
	ed.WS = env.WS
	u := string(workspace.FromPath(filepath.Join(root, "typing.txt")))
	env.WS.Open(u, "plaintext", 1, "a\nb\nfoo\nd\n")
	read := func() string {
		res, err := env.Read(context.Background(), engine.ReadParams{TextDocument: engine.TextDocument{URI: u}})
		if err != nil || !res.OK {
			t.Fatal(err, res.Message)
		}
		return res.Content
	}
	read()
	v := int32(1)
	change := func(line, from, to uint32, text string) {
		v++
		r := textdoc.Range{Start: textdoc.Pos{Line: line, Char: from}, End: textdoc.Pos{Line: line, Char: to}}
		if _, err := env.WS.Change(u, v, []textdoc.Change{{Range: &r, Text: text}}, textdoc.UTF8, ""); err != nil {
			t.Fatal(err)
		}
	}
	change(2, 0, 3, "bar")
	for i := 0; i < 600; i++ { // type and erase on line 1
		if i%2 == 0 {
			change(0, 1, 1, "x")
		} else {
			change(0, 1, 2, "")
		}
	}
	content := read()
	ref := strings.SplitN(strings.Split(content, "\n")[2], "|", 2)[0]
	edits, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": ref, "new_content": "baz"}})
	res, err := env.Edit(context.Background(), engine.EditParams{TextDocument: engine.TextDocument{URI: u}, Edits: edits})
	if err != nil || !res.OK {
		t.Fatalf("edit after long typing: %v %+v", err, res.Outcome)
	}
	if d, _ := env.WS.Lookup(u); d.Snap.Text() != "a\nb\nbaz\nd\n" {
		t.Fatalf("text %q", d.Snap.Text())
	}
}
