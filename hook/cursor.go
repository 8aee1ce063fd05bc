package hook

import (
	"encoding/json"
	"fmt"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
)

// Cursor is Cursor's door (.cursor/hooks.json): beforeReadFile (the text
// the agent is given), preToolUse on its file-changing tools, afterFileEdit,
// preCompact.
var Cursor = &Door{Name: "cursor", Agent: "cursor", Parse: parseCursor, Deny: denyCursor, Tools: cursorTools}

// cursorEvent is a Cursor hook event: the members sightline uses.
type cursorEvent struct {
	ConversationID *string         `json:"conversation_id"`
	HookEventName  string          `json:"hook_event_name"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Cwd            string          `json:"cwd"`
	FilePath       *string         `json:"file_path"`
	Content        *string         `json:"content"`
	Edits          json.RawMessage `json:"edits"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

// The pseudo tools of Cursor's file events: what beforeReadFile gives the
// agent, what afterFileEdit says was changed.
const (
	cursorRead   = "beforeReadFile"
	cursorEdited = "afterFileEdit"
)

func parseCursor(raw []byte) (Event, error) {
	var e cursorEvent
	err := decodeJudged(raw, &e)
	ev := Event{Cwd: e.Cwd}
	if e.ConversationID != nil {
		ev.Session = *e.ConversationID
	}
	if len(e.WorkspaceRoots) > 0 {
		ev.Root = e.WorkspaceRoots[0]
		if ev.Cwd == "" {
			ev.Cwd = ev.Root
		}
	}
	switch e.HookEventName {
	case "preToolUse":
		ev.Phase, ev.Tool, ev.Args = Before, e.ToolName, e.ToolInput
	case "beforeReadFile":
		// The file's text as the agent will be given it: shown, when the
		// read goes ahead (the answer lets it).
		ev.Phase, ev.Tool = After, cursorRead
		ev.Args, _ = json.Marshal(map[string]any{"file_path": e.FilePath})
		ev.Output, _ = json.Marshal(map[string]any{"content": e.Content})
		ev.Reply = []byte(`{"permission":"allow"}` + "\n")
	case "afterFileEdit":
		ev.Phase, ev.Tool = After, cursorEdited
		ev.Args, _ = json.Marshal(map[string]any{"file_path": e.FilePath, "edits": e.Edits})
	case "preCompact":
		ev.Phase, ev.Why = Expire, "the context was compacted"
	}
	if err != nil {
		return ev, fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if ev.Session == "" || e.HookEventName == "" {
		return ev, fmt.Errorf("the hook event has no conversation_id or hook_event_name")
	}
	return ev, nil
}

// denyCursor refuses a tool call in both of the answers Cursor's hooks
// document: preToolUse's decision and reason, and the permission with the
// messages for the user and the agent its other gates read.
func denyCursor(reason string) []byte {
	b, _ := json.Marshal(map[string]string{"decision": "deny", "reason": reason,
		"permission": "deny", "user_message": reason, "agent_message": reason})
	return append(b, '\n')
}

// cursorPath reads file_path, required.
type cursorPath struct {
	FilePath *string `json:"file_path"`
}

var cursorTools = map[string]Tool{
	cursorRead: {Op: OpRead,
		Args: func(raw json.RawMessage) (Call, error) {
			var in cursorPath
			if err := decodeArgs(raw, &in); err != nil || in.FilePath == nil {
				return Call{}, need("file_path")
			}
			return Call{Path: *in.FilePath}, nil
		},
		Shown: func(c Call, out json.RawMessage) []Shown {
			var o struct {
				Content *string `json:"content"`
			}
			if json.Unmarshal(out, &o) != nil || o.Content == nil || *o.Content == "" {
				return nil
			}
			return []Shown{{Path: c.Path, Lines: judge.Numbered(1, judge.TextLines(*o.Content))}}
		}},
	cursorEdited: {Op: OpReplace,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				FilePath *string `json:"file_path"`
				Edits    []struct {
					OldString *string `json:"old_string"`
					NewString *string `json:"new_string"`
				} `json:"edits"`
			}
			if err := decodeArgs(raw, &in); err != nil || in.FilePath == nil {
				return Call{}, need("file_path")
			}
			c := Call{Path: *in.FilePath}
			for _, e := range in.Edits {
				if e.OldString != nil && e.NewString != nil {
					c.Edits = append(c.Edits, engine.OldText{Text: *e.OldString, New: e.NewString})
				}
			}
			return c, nil
		},
		Done: func(json.RawMessage) (bool, bool) { return true, false }},
	"Write":      cursorWrite,
	"Edit":       cursorReplace,
	"StrReplace": cursorReplace,
	"Delete": {Op: OpWrite, // all of its lines go
		Args: func(raw json.RawMessage) (Call, error) {
			var in cursorPath
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.FilePath == nil {
				return Call{}, need("file_path")
			}
			return Call{Path: *in.FilePath}, nil
		},
		Done: func(json.RawMessage) (bool, bool) { return false, false }},
}

var cursorWrite = Tool{Op: OpWrite,
	Args: func(raw json.RawMessage) (Call, error) {
		var in struct {
			FilePath *string `json:"file_path"`
			Content  *string `json:"content"`
		}
		if err := decodeArgs(raw, &in); err != nil {
			return Call{}, err
		}
		if in.FilePath == nil || in.Content == nil {
			return Call{}, need("file_path or content")
		}
		return Call{Path: *in.FilePath, Content: in.Content}, nil
	},
	// What it wrote is recorded from afterFileEdit.
	Done: func(json.RawMessage) (bool, bool) { return false, false }}

var cursorReplace = Tool{Op: OpReplace,
	Args: func(raw json.RawMessage) (Call, error) {
		var in struct {
			FilePath   *string `json:"file_path"`
			OldString  *string `json:"old_string"`
			NewString  *string `json:"new_string"`
			ReplaceAll *bool   `json:"replace_all"`
		}
		if err := decodeArgs(raw, &in); err != nil {
			return Call{}, err
		}
		if in.FilePath == nil || in.OldString == nil || in.NewString == nil {
			return Call{}, need("file_path, old_string or new_string")
		}
		return Call{Path: *in.FilePath, Edits: []engine.OldText{{Text: *in.OldString, New: in.NewString,
			All: in.ReplaceAll != nil && *in.ReplaceAll}}}, nil
	},
	Done: func(json.RawMessage) (bool, bool) { return false, false }}
