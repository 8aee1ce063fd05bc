package hook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sightline-lsp/sightline/engine"
)

// Opencode is opencode's door: its plugin API has no hook commands, so a
// small plugin (OpencodePlugin) sends tool.execute.before and
// tool.execute.after of its read, edit and write tools, and the
// session.compacted event, to `sightline hook opencode`, and throws the
// refusal it answers with, which opencode gives the model as the tool's
// error.
var Opencode = &Door{Name: "opencode", Agent: "opencode", Parse: parseOpencode, Deny: denyOpencode, Tools: opencodeTools}

// opencodeEvent is what the plugin sends: the hook's name, the session, the
// tool and its arguments, the tool's output after it ran, and the project
// (opencode's worktree, else its directory).
type opencodeEvent struct {
	Event     string          `json:"event"`
	SessionID *string         `json:"sessionID"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Output    json.RawMessage `json:"output"`
	Worktree  string          `json:"worktree"`
	Directory string          `json:"directory"`
}

func parseOpencode(raw []byte) (Event, error) {
	var e opencodeEvent
	err := decodeJudged(raw, &e)
	ev := Event{Tool: e.Tool, Args: e.Args, Output: e.Output, Cwd: e.Directory, Root: e.Worktree}
	if ev.Root == "" || ev.Root == "/" {
		ev.Root = e.Directory // opencode's worktree outside a repository
	}
	if e.SessionID != nil {
		ev.Session = *e.SessionID
	}
	switch e.Event {
	case "tool.execute.before":
		ev.Phase = Before
	case "tool.execute.after":
		ev.Phase = After
	case "session.compacted":
		ev.Phase, ev.Why = Expire, "the context was compacted"
	}
	if err != nil {
		return ev, fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if ev.Session == "" || e.Event == "" {
		return ev, fmt.Errorf("the hook event has no sessionID or event")
	}
	return ev, nil
}

// denyOpencode is the refusal the plugin throws.
func denyOpencode(reason string) []byte {
	b, _ := json.Marshal(map[string]string{"deny": reason})
	return append(b, '\n')
}

// A line of opencode's read output: its number (zero-padded, then "| ",
// or "N: " in later releases) and its text.
var opencodeLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0*(\d+)(?:\| |: )(.*)$`) })

var opencodeTools = map[string]Tool{
	"read": {Op: OpRead,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				FilePath *string `json:"filePath"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.FilePath == nil {
				return Call{}, need("filePath")
			}
			return Call{Path: *in.FilePath}, nil
		},
		Shown: func(c Call, out json.RawMessage) []Shown {
			// The lines carry their numbers: each counts by its own.
			var s string
			if json.Unmarshal(out, &s) != nil {
				return nil
			}
			var lines []engine.ShownLine
			for _, l := range strings.Split(s, "\n") {
				if m := opencodeLine().FindStringSubmatch(strings.TrimSuffix(l, "\r")); m != nil {
					n, err := strconv.Atoi(m[1])
					if err == nil && n > 0 {
						lines = append(lines, engine.ShownLine{Line: n, Text: m[2]})
					}
				}
			}
			return []Shown{{Path: c.Path, Lines: lines}}
		}},
	"edit": {Op: OpReplace,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				FilePath   *string `json:"filePath"`
				OldString  *string `json:"oldString"`
				NewString  *string `json:"newString"`
				ReplaceAll *bool   `json:"replaceAll"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.FilePath == nil || in.OldString == nil || in.NewString == nil {
				return Call{}, need("filePath, oldString or newString")
			}
			return Call{Path: *in.FilePath, Edits: []engine.OldText{{Text: *in.OldString, New: in.NewString,
				All: in.ReplaceAll != nil && *in.ReplaceAll}}}, nil
		},
		Done: func(out json.RawMessage) (bool, bool) { return len(out) > 0, false }},
	"write": {Op: OpWrite,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				FilePath *string `json:"filePath"`
				Content  *string `json:"content"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.FilePath == nil || in.Content == nil {
				return Call{}, need("filePath or content")
			}
			return Call{Path: *in.FilePath, Content: in.Content}, nil
		},
		Done: func(out json.RawMessage) (bool, bool) { return len(out) > 0, false }},
}

// OpencodePlugin is the plugin file `sightline hook install opencode`
// writes: it runs command (the shell words of `sightline hook opencode`)
// for the tools sightline judges, throws sightline's refusal, and tells
// it of a compaction. A hook that cannot run refuses the change: the
// guard never fails open.
func OpencodePlugin(command []string) string {
	cmd, _ := json.Marshal(command)
	return strings.ReplaceAll(opencodePlugin, "COMMAND", string(cmd))
}

const opencodePlugin = `// sightline's hook for opencode: written by ` + "`sightline hook install opencode`" + `; removed by
// ` + "`sightline hook uninstall opencode`" + `. It sends the tools opencode runs to sightline, which checks a
// change against what the model was shown and records what it was shown.
import { spawnSync } from "node:child_process"

const command = COMMAND
const judged = new Set(["read", "edit", "write"])

export const Sightline = async ({ directory, worktree }) => {
  const ask = (event) => {
    const r = spawnSync(command[0], command.slice(1), {
      input: JSON.stringify({ ...event, directory, worktree }),
      encoding: "utf8",
      timeout: 30000,
      maxBuffer: 64 << 20,
    })
    if (r.stderr) process.stderr.write(r.stderr)
    if (r.error || r.status !== 0) return { failed: String(r.error || "exit status " + r.status) }
    try {
      return r.stdout.trim() ? JSON.parse(r.stdout) : {}
    } catch (e) {
      return { failed: "its answer cannot be read: " + e }
    }
  }
  const args = new Map()
  return {
    "tool.execute.before": async (input, output) => {
      if (!judged.has(input.tool)) return
      args.set(input.callID, output.args)
      const a = ask({ event: "tool.execute.before", sessionID: input.sessionID, tool: input.tool, args: output.args })
      if (a.failed && input.tool !== "read") throw new Error("sightline refused this change: its hook failed (" + a.failed + "). Nothing was changed; tell the user.")
      if (a.deny) throw new Error(a.deny)
    },
    "tool.execute.after": async (input, output) => {
      if (!judged.has(input.tool)) return
      const given = input.args ?? args.get(input.callID)
      args.delete(input.callID)
      ask({ event: "tool.execute.after", sessionID: input.sessionID, tool: input.tool, args: given, output: output.output })
    },
    event: async ({ event }) => {
      if (event.type === "session.compacted") ask({ event: "session.compacted", sessionID: event.properties.sessionID })
    },
  }
}
`
