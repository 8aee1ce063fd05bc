package acp_test

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/sightline-lsp/sightline/acp"
)

// member is a JSON object's member as written: its name (raw, escapes
// included) and its value (raw JSON).
type member struct{ name, value string }

func object(ms []member, ws string) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = ws + `"` + m.name + `"` + ws + ":" + ws + m.value + ws
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// nameVariants are spellings of a member name: the same name escaped (the
// receiver reads it as the name) and other cases (another member).
func nameVariants(n string) []string {
	up := []rune(n)
	up[0] = unicode.ToUpper(up[0])
	return []string{
		fmt.Sprintf(`\u%04x`, n[0]) + n[1:],
		strings.ReplaceAll(fmt.Sprintf("%+q", n), `"`, ""), // unchanged, for the duplicates below
		string(up),
		strings.ToUpper(n),
	}
}

// TestWriteVariantsNeverReachTheEditorUnjudged generates variants of a
// write of .git/config as a hostile agent spells them (member names in
// other cases or escaped, members named twice with a harmless decoy
// before or after, the path through ".", "..", a link and doubled
// separators, odd whitespace) and checks the one property that matters:
// no line the editor receives is, as the editor reads it (exact names, the
// last copy of a member winning, as JavaScript's JSON.parse reads it), a
// write of a file in .git.
func TestWriteVariantsNeverReachTheEditorUnjudged(t *testing.T) {
	d := newDoor(t, acp.Options{}, true)
	evils := []string{
		d.path(".git/config"), d.root + "/d/hk/../config", d.root + "/./.git/config", d.root + "//.git/config",
		d.root + "/.git/./config", d.root + "/d/../.git/config", d.root + "/.git/hooks/../config", d.path("d/hk/pre-commit"),
	}
	decoy := map[string]string{"path": q(d.path("new.txt")), "method": `"_vendor/x"`, "content": `"y"`, "sessionId": `"t"`, "id": `999999`}
	id := 0
	var lines []string
	add := func(top, params []member, ws string) {
		id++
		top = append([]member(nil), top...)
		for i := range top {
			switch top[i].value {
			case "PARAMS":
				top[i].value = object(params, ws)
			case "ID":
				top[i].value = fmt.Sprint(id)
			}
		}
		lines = append(lines, object(top, ws))
	}
	for _, evil := range evils {
		params := []member{{"sessionId", `"s"`}, {"path", q(evil)}, {"content", `"x"`}}
		top := []member{{"jsonrpc", `"2.0"`}, {"id", "ID"}, {"method", `"fs/write_text_file"`}, {"params", "PARAMS"}}
		for _, ws := range []string{"", " ", "\t", "\r"} {
			add(top, params, ws)
		}
		// Every member, top and params: renamed, or doubled with the decoy
		// (or the renamed member carrying the decoy) before or after.
		for _, level := range []string{"top", "params"} {
			ms := top
			if level == "params" {
				ms = params
			}
			for i, m := range ms {
				if decoy[m.name] == "" {
					continue
				}
				for _, v := range nameVariants(m.name) {
					with := func(extra []member) []member {
						out := append(append(append([]member{}, ms[:i]...), extra...), ms[i+1:]...)
						return out
					}
					variants := [][]member{
						with([]member{{v, m.value}}),
						with([]member{{m.name, m.value}, {v, decoy[m.name]}}),
						with([]member{{v, decoy[m.name]}, {m.name, m.value}}),
						with([]member{{m.name, decoy[m.name]}, {v, m.value}}),
						with([]member{{v, m.value}, {m.name, decoy[m.name]}}),
					}
					for _, vs := range variants {
						if level == "top" {
							add(vs, params, "")
						} else {
							add(top, vs, "")
						}
					}
				}
			}
		}
	}
	// The agent's answers are not looked at here.
	go io.Copy(io.Discard, d.p.agentR)
	for _, line := range lines {
		send(t, d.p.agentW, "%s", line)
		send(t, d.p.agentW, `{"jsonrpc":"2.0","method":"_sightline_test/sentinel","params":{}}`)
		for {
			m := d.editor.next()
			if m["method"] == "_sightline_test/sentinel" {
				break
			}
			params, _ := m["params"].(map[string]any)
			path, _ := params["path"].(string)
			if m["method"] == "fs/write_text_file" && inGit(path) {
				t.Fatalf("the editor got a write of %s (.git) from:\n%s", path, line)
			}
		}
	}
	t.Logf("%d variants", len(lines))
}

// inGit reports whether a path, as the system resolves it (links followed,
// ".." from where they led), is in a .git folder.
func inGit(path string) bool {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		dir = filepath.Dir(path)
	}
	return strings.Contains(strings.ToLower(filepath.Join(dir, filepath.Base(path))+"/"), "/.git/")
}
