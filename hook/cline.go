package hook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
)

// Cline is Cline's door (hook scripts named PreToolUse, PostToolUse and
// PreCompact in .clinerules/hooks): read_file, write_to_file,
// replace_in_file and execute_command.
var Cline = &Door{Name: "cline", Agent: "cline", Parse: parseCline, Deny: denyCline, Tools: clineTools}

// clineTool is a tool call in a Cline hook event: parameters as the model
// wrote them (strings), and after it ran its result.
type clineTool struct {
	ToolName   string          `json:"toolName"`
	Parameters json.RawMessage `json:"parameters"`
	Result     json.RawMessage `json:"result"`
	Success    *bool           `json:"success"`
}

type clineEvent struct {
	TaskID         *string    `json:"taskId"`
	HookName       string     `json:"hookName"`
	WorkspaceRoots []string   `json:"workspaceRoots"`
	PreToolUse     *clineTool `json:"preToolUse"`
	PostToolUse    *clineTool `json:"postToolUse"`
}

func parseCline(raw []byte) (Event, error) {
	var e clineEvent
	err := decodeJudged(raw, &e)
	ev := Event{Reply: []byte(`{"cancel":false}` + "\n")}
	if e.TaskID != nil {
		ev.Session = *e.TaskID
	}
	if len(e.WorkspaceRoots) > 0 {
		// Cline's tools take paths relative to the workspace.
		ev.Root, ev.Cwd = e.WorkspaceRoots[0], e.WorkspaceRoots[0]
	}
	switch e.HookName {
	case "PreToolUse":
		ev.Phase = Before
		if e.PreToolUse != nil {
			ev.Tool, ev.Args = e.PreToolUse.ToolName, e.PreToolUse.Parameters
		}
	case "PostToolUse":
		ev.Phase = After
		if t := e.PostToolUse; t != nil {
			ev.Tool, ev.Args = t.ToolName, t.Parameters
			if t.Success == nil || *t.Success {
				ev.Output = t.Result
			}
		}
	case "PreCompact":
		ev.Phase, ev.Why = Expire, "the context was compacted"
	}
	if err != nil {
		return ev, fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if ev.Session == "" || e.HookName == "" {
		return ev, fmt.Errorf("the hook event has no taskId or hookName")
	}
	if ev.Phase == Before && e.PreToolUse == nil || ev.Phase == After && e.PostToolUse == nil {
		return ev, fmt.Errorf("the %s event has no tool call", e.HookName)
	}
	return ev, nil
}

// denyCline cancels the tool call; the reason goes to the user
// (errorMessage) and into the conversation (contextModification).
func denyCline(reason string) []byte {
	b, _ := json.Marshal(map[string]any{"cancel": true, "errorMessage": reason, "contextModification": reason})
	return append(b, '\n')
}

// clineResult is a tool's result text, when it succeeded (the event's
// Output is empty otherwise).
func clineResult(out json.RawMessage) (string, bool) {
	var s string
	if len(out) == 0 || json.Unmarshal(out, &s) != nil {
		return "", false
	}
	return s, true
}

// clineBlocks reads replace_in_file's diff: SEARCH/REPLACE blocks, in
// order, with either of the markers Cline reads ("------- SEARCH",
// "=======", "+++++++ REPLACE", or "<<<<<<< SEARCH" … ">>>>>>> REPLACE").
func clineBlocks(diff string) ([]engine.OldText, error) {
	var out []engine.OldText
	var old, cur []string
	state := 0 // 0: between blocks, 1: search, 2: replace
	for _, l := range strings.Split(strings.ReplaceAll(diff, "\r\n", "\n"), "\n") {
		t := strings.TrimRight(l, " \t")
		switch {
		case state == 0 && (t == "------- SEARCH" || t == "<<<<<<< SEARCH"):
			state, cur = 1, nil
		case state == 1 && t == "=======":
			state, old, cur = 2, cur, nil
		case state == 2 && (t == "+++++++ REPLACE" || t == ">>>>>>> REPLACE"):
			n := strings.Join(cur, "\n")
			out = append(out, engine.OldText{Text: strings.Join(old, "\n"), New: &n})
			state = 0
		case state == 0:
			if strings.TrimSpace(t) != "" {
				return nil, fmt.Errorf("have text outside a SEARCH/REPLACE block")
			}
		default:
			cur = append(cur, l)
		}
	}
	if state != 0 {
		return nil, fmt.Errorf("have a SEARCH/REPLACE block that does not end")
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("have no SEARCH/REPLACE block")
	}
	return out, nil
}

var clineTools = map[string]Tool{
	"read_file": {Op: OpRead,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Path *string `json:"path"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.Path == nil {
				return Call{}, need("path")
			}
			return Call{Path: *in.Path}, nil
		},
		Shown: func(c Call, out json.RawMessage) []Shown {
			s, ok := clineResult(out)
			if !ok || s == "" {
				return nil
			}
			return []Shown{{Path: c.Path, Lines: judge.Numbered(1, judge.TextLines(s))}}
		}},
	"write_to_file": {Op: OpWrite,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Path    *string `json:"path"`
				Content *string `json:"content"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.Path == nil || in.Content == nil {
				return Call{}, need("path or content")
			}
			return Call{Path: *in.Path, Content: in.Content}, nil
		},
		Done: func(out json.RawMessage) (bool, bool) {
			_, ok := clineResult(out)
			return ok, false
		}},
	"replace_in_file": {Op: OpReplace,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Path *string `json:"path"`
				Diff *string `json:"diff"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.Path == nil || in.Diff == nil {
				return Call{}, need("path or diff")
			}
			edits, err := clineBlocks(*in.Diff)
			if err != nil {
				return Call{}, err
			}
			return Call{Path: *in.Path, Edits: edits}, nil
		},
		Done: func(out json.RawMessage) (bool, bool) {
			_, ok := clineResult(out)
			return ok, false
		}},
	"execute_command": {Op: OpShell,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Command *string `json:"command"`
			}
			if err := json.Unmarshal(raw, &in); err != nil || in.Command == nil {
				return Call{}, need("command")
			}
			return Call{Command: *in.Command}, nil
		},
		Stdout: func(out json.RawMessage) (string, bool) {
			// "Command executed.\nOutput:\nTEXT": a command that ran to its
			// end, and all it printed.
			s, ok := clineResult(out)
			if !ok {
				return "", false
			}
			return strings.CutPrefix(s, "Command executed.\nOutput:\n")
		}},
}
