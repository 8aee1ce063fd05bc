package hook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
)

// Copilot is GitHub Copilot CLI's door (.github/hooks/*.json):
// preToolUse and postToolUse on view, edit, create and bash, preCompact.
var Copilot = &Door{Name: "copilot", Agent: "copilot-cli", Parse: parseCopilot, Deny: denyCopilot, Tools: copilotTools}

// copilotEvent is a Copilot CLI hook event. Its events do not name
// themselves: postToolUse is the one with a toolResult, preToolUse the one
// with a toolName only, preCompact the one with a trigger.
type copilotEvent struct {
	SessionID  *string         `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	ToolName   *string         `json:"toolName"`
	ToolArgs   json.RawMessage `json:"toolArgs"`
	ToolResult json.RawMessage `json:"toolResult"`
	Trigger    *string         `json:"trigger"`
}

func parseCopilot(raw []byte) (Event, error) {
	var e copilotEvent
	err := decodeJudged(raw, &e)
	// Copilot CLI works in the folder it was started in (its hooks load
	// from there), which every event gives as cwd.
	ev := Event{Cwd: e.Cwd, Root: e.Cwd, Args: e.ToolArgs, Output: e.ToolResult}
	if e.SessionID != nil {
		ev.Session = *e.SessionID
	}
	if e.ToolName != nil {
		ev.Tool = *e.ToolName
	}
	switch {
	case len(e.ToolResult) > 0:
		ev.Phase = After
	case e.ToolName != nil:
		ev.Phase = Before
	case e.Trigger != nil:
		ev.Phase, ev.Why = Expire, "the context was compacted"
	}
	if err != nil {
		return ev, fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if ev.Session == "" {
		return ev, fmt.Errorf("the hook event has no sessionId")
	}
	return ev, nil
}

// denyCopilot is preToolUse's refusal; Copilot CLI gives the model
// "Denied by preToolUse hook: REASON".
func denyCopilot(reason string) []byte {
	b, _ := json.Marshal(map[string]string{"permissionDecision": "deny", "permissionDecisionReason": reason})
	return append(b, '\n')
}

// copilotText is a tool's text for the model, when it succeeded.
func copilotText(out json.RawMessage) (string, bool) {
	var r struct {
		ResultType       string  `json:"resultType"`
		TextResultForLlm *string `json:"textResultForLlm"`
	}
	if json.Unmarshal(out, &r) != nil || r.ResultType != "success" || r.TextResultForLlm == nil {
		return "", false
	}
	return *r.TextResultForLlm, true
}

// The line Copilot CLI's bash puts after a command's output.
var copilotShellEnd = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\n)<shellId: [^>\n]+ completed with exit code 0>$`)
})

var copilotTools = map[string]Tool{
	"view": {Op: OpRead,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Path      *string `json:"path"`
				ViewRange []int   `json:"view_range"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.Path == nil {
				return Call{}, need("path")
			}
			c := Call{Path: *in.Path}
			if len(in.ViewRange) > 0 {
				if in.ViewRange[0] < 1 {
					return Call{}, fmt.Errorf("have a view_range starting before line 1")
				}
				c.Start = in.ViewRange[0]
			}
			return c, nil
		},
		Shown: func(c Call, out json.RawMessage) []Shown {
			// The lines as they are, from the range's first line.
			s, ok := copilotText(out)
			if !ok || s == "" {
				return nil
			}
			return []Shown{{Path: c.Path, Lines: judge.Numbered(max(c.Start, 1), judge.TextLines(s))}}
		}},
	"edit": {Op: OpReplace,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Path   *string `json:"path"`
				OldStr *string `json:"old_str"`
				NewStr *string `json:"new_str"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.Path == nil || in.OldStr == nil {
				return Call{}, need("path or old_str")
			}
			newStr := ""
			if in.NewStr != nil {
				newStr = *in.NewStr
			}
			return Call{Path: *in.Path, Edits: []engine.OldText{{Text: *in.OldStr, New: &newStr}}}, nil
		},
		Done: func(out json.RawMessage) (bool, bool) {
			_, ok := copilotText(out)
			return ok, false
		}},
	"create": {Op: OpWrite,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Path     *string `json:"path"`
				FileText *string `json:"file_text"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.Path == nil || in.FileText == nil {
				return Call{}, need("path or file_text")
			}
			return Call{Path: *in.Path, Content: in.FileText}, nil
		},
		Done: func(out json.RawMessage) (bool, bool) {
			_, ok := copilotText(out)
			return ok, ok // create makes a new file, or fails
		}},
	"bash": {Op: OpShell,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Command *string `json:"command"`
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				raw = json.RawMessage(s)
			}
			if err := json.Unmarshal(raw, &in); err != nil || in.Command == nil {
				return Call{}, need("command")
			}
			return Call{Command: *in.Command}, nil
		},
		Stdout: func(out json.RawMessage) (string, bool) {
			// Only an output that ran to its end, whole: "OUTPUT\n<shellId: N
			// completed with exit code 0>".
			s, ok := copilotText(out)
			if !ok {
				return "", false
			}
			loc := copilotShellEnd().FindStringIndex(s)
			if loc == nil {
				return "", false
			}
			return strings.TrimSuffix(s[:loc[0]], "\n"), true
		}},
}
