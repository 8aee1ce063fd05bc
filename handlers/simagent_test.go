package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// loopEditor applies edits to the workspace's open buffer at once, as an
// editor would, reporting them back as a didChange.
type loopEditor struct{ ws *workspace.Workspace }

func (l loopEditor) Encoding() textdoc.Encoding { return textdoc.UTF8 }

func (l loopEditor) ApplyEdit(ctx context.Context, uri string, version int32, changes []textdoc.Change, label string) (bool, string, error) {
	d, err := l.ws.Lookup(uri)
	if err != nil || d.Version != version {
		return false, "version moved", nil
	}
	_, err = l.ws.Change(uri, version+1, changes, textdoc.UTF8, "")
	return err == nil, "", err
}

// simLine is a line of the simulated world: an identity and its content.
type simLine struct {
	id      int
	content string
}

// TestSimulatedAgentNeverEditsTheWrongLine: an agent with imperfect memory
// (refs from its last full read plus the windows returned after its own
// edits) edits while a user inserts, deletes and changes lines, with many
// duplicate lines ("}", blank). Every accepted edit must land on the line the
// agent meant; refusals are fine, a wrong landing never is.
func TestSimulatedAgentNeverEditsTheWrongLine(t *testing.T) {
	steps := 4000
	if testing.Short() {
		steps = 800
	}
	for seed := uint64(1); seed <= 3; seed++ {
		landed, refused, wrong := simulate(t, seed, steps)
		t.Logf("seed %d: %d steps: landed %d, refused %d, wrong %d", seed, steps, landed, refused, wrong)
		if wrong != 0 {
			t.Fatalf("seed %d: %d edits landed on the wrong line", seed, wrong)
		}
		if landed < steps/10 {
			t.Fatalf("seed %d: only %d edits landed: the simulation tests nothing", seed, landed)
		}
	}
}

func simulate(t *testing.T, seed uint64, steps int) (landed, refused, wrong int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	env := handlers.Setup(context.Background(), handlers.Options{Roots: []string{t.TempDir()}, Config: config.Default(), NoPersist: true})
	env.Editor = loopEditor{env.WS}
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
	u := "file:///sim/main.go"
	if _, err := env.WS.Open(u, "go", 1, text()); err != nil {
		t.Fatal(err)
	}
	version := int32(1)
	memory := map[string]int{} // ref → the id the agent believes it names
	origin := map[string]string{}
	var history []string
	curStep := 0
	// remember takes what the agent was shown: each line's ref names its line
	// number in the current world.
	remember := func(content string) {
		for _, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
			ref, _, ok := strings.Cut(l, "|")
			if !ok {
				continue
			}
			n, _ := strconv.Atoi(ref[:strings.IndexByte(ref, ':')])
			memory[ref] = world[n-1].id
			origin[ref] = fmt.Sprintf("step %d", curStep)
		}
	}
	fullRead := func() {
		memory = map[string]int{}
		res, err := env.Read(context.Background(), handlers.ReadParams{TextDocument: handlers.TextDocument{URI: u}})
		if err != nil || !res.OK {
			t.Fatalf("read: %v %+v", err, res.Outcome)
		}
		remember(res.Content)
	}
	userChange := func(r textdoc.Range, newText string) {
		version++
		if _, err := env.WS.Change(u, version, []textdoc.Change{{Range: &r, Text: newText}}, textdoc.UTF8, ""); err != nil {
			t.Fatal(err)
		}
	}
	fullRead()
	for step := 0; step < steps; step++ {
		curStep = step
		switch k := rng.IntN(10); {
		case k < 3: // the user types
			i := rng.IntN(len(world) + 1)
			switch rng.IntN(3) {
			case 0: // insert a line
				nextID++
				l := simLine{nextID, pool[rng.IntN(len(pool))]}
				world = append(world[:i], append([]simLine{l}, world[i:]...)...)
				history = append(history, fmt.Sprintf("%d: insert id %d %q at line %d", step, l.id, l.content, i+1))
				userChange(textdoc.Range{Start: textdoc.Pos{Line: uint32(i)}, End: textdoc.Pos{Line: uint32(i)}}, l.content+"\n")
			case 1: // delete a line
				if i == len(world) || len(world) < 10 {
					continue
				}
				history = append(history, fmt.Sprintf("%d: delete id %d %q at line %d", step, world[i].id, world[i].content, i+1))
				world = append(world[:i], world[i+1:]...)
				userChange(textdoc.Range{Start: textdoc.Pos{Line: uint32(i)}, End: textdoc.Pos{Line: uint32(i + 1)}}, "")
			default: // change a line (same identity, new content)
				if i == len(world) {
					continue
				}
				old := world[i].content
				world[i].content = pool[rng.IntN(len(pool))]
				history = append(history, fmt.Sprintf("%d: change id %d at line %d %q -> %q", step, world[i].id, i+1, old, world[i].content))
				userChange(textdoc.Range{Start: textdoc.Pos{Line: uint32(i)}, End: textdoc.Pos{Line: uint32(i), Char: uint32(len(old))}}, world[i].content)
			}
		case k < 4:
			fullRead()
		default: // the agent edits a line it remembers
			if len(memory) == 0 {
				fullRead()
				continue
			}
			refs := make([]string, 0, len(memory))
			for r := range memory {
				refs = append(refs, r)
			}
			slices.Sort(refs)
			ref := refs[rng.IntN(len(refs))]
			meant := memory[ref]
			newContent := fmt.Sprintf("edit %d", step)
			edits, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": ref, "new_content": newContent}})
			before := text()
			res, err := env.Edit(context.Background(), handlers.EditParams{TextDocument: handlers.TextDocument{URI: u}, Edits: edits})
			if err != nil {
				t.Fatal(err)
			}
			d, _ := env.WS.Lookup(u)
			version = d.Version
			if !res.OK {
				refused++
				if d.Snap.Text() != before {
					t.Fatalf("step %d: refused edit changed the text", step)
				}
				delete(memory, ref)
				if res.Expanded != "" {
					remember(res.Expanded)
				}
				continue
			}
			// Which line changed?
			after := strings.Split(strings.TrimSuffix(d.Snap.Text(), "\n"), "\n")
			hit := -1
			for i := range world {
				if after[i] != world[i].content {
					hit = i
				}
			}
			if hit < 0 || after[hit] != newContent {
				t.Fatalf("step %d: accepted edit changed nothing recognisable", step)
			}
			if world[hit].id != meant {
				wrong++
				t.Errorf("step %d: ref %s (from %s) meant line id %d, landed on id %d (line %d); remapped %+v", step, ref, origin[ref], meant, world[hit].id, hit+1, res.Remapped)
				for _, h := range history[max(0, len(history)-15):] {
					t.Log(h)
				}
			} else {
				landed++
			}
			history = append(history, fmt.Sprintf("%d: agent edit id %d at line %d (ref %s)", step, world[hit].id, hit+1, ref))
			world[hit].content = newContent
			delete(memory, ref)
			if res.WindowRange != nil {
				remember(res.Window)
			}
		}
		checkSync(t, env, u, text())
	}
	return landed, refused, wrong
}

func checkSync(t *testing.T, env *handlers.Env, u, want string) {
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
	env := handlers.Setup(context.Background(), handlers.Options{Roots: []string{t.TempDir()}, Config: config.Default(), NoPersist: true})
	env.Editor = loopEditor{env.WS}
	u := "file:///t/typing.txt"
	env.WS.Open(u, "plaintext", 1, "a\nb\nfoo\nd\n")
	read := func() string {
		res, err := env.Read(context.Background(), handlers.ReadParams{TextDocument: handlers.TextDocument{URI: u}})
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
	res, err := env.Edit(context.Background(), handlers.EditParams{TextDocument: handlers.TextDocument{URI: u}, Edits: edits})
	if err != nil || !res.OK {
		t.Fatalf("edit after long typing: %v %+v", err, res.Outcome)
	}
	if d, _ := env.WS.Lookup(u); d.Snap.Text() != "a\nb\nbaz\nd\n" {
		t.Fatalf("text %q", d.Snap.Text())
	}
}
