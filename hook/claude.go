package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
)

// ClaudeEvent is a Claude Code hook event: the fields sightline uses.
type ClaudeEvent struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	// Source is SessionStart's: startup, resume, clear or compact.
	Source string `json:"source"`
	// Trigger is PreCompact's: manual or auto.
	Trigger string `json:"trigger"`
}

// ParseClaude decodes an event; an error says what is wrong with it.
func ParseClaude(raw []byte) (ClaudeEvent, error) {
	var ev ClaudeEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ev, fmt.Errorf("the hook event is not a JSON object: %w", err)
	}
	if ev.SessionID == "" || ev.HookEventName == "" {
		return ev, fmt.Errorf("the hook event has no session_id or hook_event_name")
	}
	return ev, nil
}

// ClaudeSession is the ledger session of a Claude Code conversation.
func ClaudeSession(ev ClaudeEvent) string { return "claude-" + ev.SessionID }

// Claude's Read tool: lines from offset (1-based), limit lines, each cut
// at readLineCut characters.
const (
	readLimit   = 2000
	readLineCut = 2000
)

type claudeRead struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
}

type claudeReadResponse struct {
	Type string `json:"type"`
	File *struct {
		FilePath  string `json:"filePath"`
		Content   string `json:"content"`
		NumLines  int    `json:"numLines"`
		StartLine int    `json:"startLine"`
	} `json:"file"`
}

type claudeEdit struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
	Edits      []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
	Content string `json:"content"`
}

type claudeWriteResponse struct {
	Type            string `json:"type"`
	FilePath        string `json:"filePath"`
	StructuredPatch []struct {
		NewStart int      `json:"newStart"`
		Lines    []string `json:"lines"`
	} `json:"structuredPatch"`
}

type claudeGrep struct {
	Path       string `json:"path"`
	OutputMode string `json:"output_mode"`
}

type claudeGrepResponse struct {
	Mode    string `json:"mode"`
	Content string `json:"content"`
}

// Claude answers one Claude Code hook event. It never fails: what it cannot
// do (a malformed event, a server gone) lets the tool call proceed, and
// says why on standard error.
func Claude(ctx context.Context, r Runner, ev ClaudeEvent, opt Options) Answer {
	c := engine.Caller{Session: ClaudeSession(ev), Agent: "claude-code"}
	switch ev.HookEventName {
	case "PreToolUse":
		return claudePre(ctx, r, c, ev)
	case "PostToolUse":
		return claudePost(ctx, r, c, ev)
	case "PreCompact":
		return expire(ctx, r, c, opt, "the context was compacted")
	case "SessionStart":
		switch ev.Source {
		case "compact":
			return expire(ctx, r, c, opt, "the context was compacted")
		case "clear":
			return expire(ctx, r, c, opt, "the context was cleared")
		}
	}
	return Answer{}
}

// expire starts a new epoch: what was shown is no longer in the model's
// context, so it no longer counts.
func expire(ctx context.Context, r Runner, c engine.Caller, opt Options, why string) Answer {
	if opt.KeepReads {
		return Answer{}
	}
	res, err := r.Call(ctx, ops.Reset.Op, engine.ResetParams{Caller: c})
	if err != nil {
		return Answer{Stderr: fmt.Sprintf("sightline: %s, but session %s could not be reset: %v\n", why, c.Session, err)}
	}
	if o := ops.Reset.Outcome(res); !o.OK {
		return Answer{Stderr: fmt.Sprintf("sightline: %s, but session %s could not be reset: %s\n", why, c.Session, o.Message)}
	}
	return Answer{}
}

func claudePre(ctx context.Context, r Runner, c engine.Caller, ev ClaudeEvent) Answer {
	var in claudeEdit
	if !decode(ev.ToolInput, &in) || !filepath.IsAbs(in.FilePath) {
		return Answer{}
	}
	p := engine.CheckParams{Caller: c, Tool: ev.ToolName}
	switch ev.ToolName {
	case "Edit":
		p.Old = []engine.OldText{{Text: in.OldString, All: in.ReplaceAll}}
	case "MultiEdit":
		for _, e := range in.Edits {
			p.Old = append(p.Old, engine.OldText{Text: e.OldString, All: e.ReplaceAll})
		}
	case "Write":
		p.Whole = true
	default:
		return Answer{}
	}
	why, err := check(ctx, r, p, in.FilePath)
	a := Answer{}
	if err != nil {
		a.Stderr = "sightline: " + err.Error() + "\n"
	}
	if why != "" {
		a.Stdout = denyClaude(why)
	}
	return a
}

// denyClaude is a PreToolUse answer that denies the tool call; the reason
// is shown to the model.
func denyClaude(reason string) []byte {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       "deny",
		"permissionDecisionReason": reason,
	}})
	return append(b, '\n')
}

func claudePost(ctx context.Context, r Runner, c engine.Caller, ev ClaudeEvent) Answer {
	var err error
	switch ev.ToolName {
	case "Read":
		err = claudeReadShown(ctx, r, c, ev)
	case "Grep":
		err = claudeGrepShown(ctx, r, c, ev)
	case "Edit", "MultiEdit", "Write":
		err = claudeWritten(ctx, r, c, ev)
	}
	if err != nil {
		return Answer{Stderr: "sightline: " + err.Error() + "\n"}
	}
	return Answer{}
}

// claudeReadShown records what a Read showed: the response's lines from its
// start line; without them, offset and limit as the tool defaults them,
// lines longer than the tool's cut excepted.
func claudeReadShown(ctx context.Context, r Runner, c engine.Caller, ev ClaudeEvent) error {
	var in claudeRead
	if !decode(ev.ToolInput, &in) || !filepath.IsAbs(in.FilePath) {
		return nil
	}
	var out claudeReadResponse
	if decode(ev.ToolResponse, &out) && out.File != nil {
		if out.Type != "" && out.Type != "text" {
			return nil // an image, a notebook, a PDF: no lines
		}
		start := max(out.File.StartLine, 1)
		return shown(ctx, r, c, in.FilePath, Numbered(start, TextLines(out.File.Content)), false, false, "Read")
	}
	// No content to compare: the range the tool reads, trusted as shown,
	// but only lines the tool did not cut.
	start := max(in.Offset, 1)
	limit := in.Limit
	if limit <= 0 {
		limit = readLimit
	}
	p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(r.Key(in.FilePath))}, Tool: "Read"}
	p.Range = &ledger.Range{Start: start, End: start + limit - 1}
	p.Cut = readLineCut
	res, err := r.Call(ctx, ops.Shown.Op, p)
	if err != nil {
		return fmt.Errorf("recording what Read showed of %s: %w", in.FilePath, err)
	}
	if o := ops.Shown.Outcome(res); !o.OK {
		return fmt.Errorf("recording what Read showed of %s: %s: %s", in.FilePath, o.Error, o.Message)
	}
	return nil
}

// Compiled on first use, not at the start of every sightline process.
var (
	grepWithFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(/[^:]*):(\d+):(.*)$`) })
	grepLine     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+):(.*)$`) })
)

// claudeGrepShown records the lines a content search showed with their
// numbers (Grep with -n): "path:line:text", or "line:text" for one file.
func claudeGrepShown(ctx context.Context, r Runner, c engine.Caller, ev ClaudeEvent) error {
	var in claudeGrep
	var out claudeGrepResponse
	if !decode(ev.ToolInput, &in) || !decode(ev.ToolResponse, &out) || out.Mode != "content" {
		return nil
	}
	byFile := map[string][]engine.ShownLine{}
	var order []string
	for _, l := range TextLines(out.Content) {
		file, num, text := "", "", ""
		if m := grepWithFile().FindStringSubmatch(l); m != nil {
			file, num, text = m[1], m[2], m[3]
		} else if m := grepLine().FindStringSubmatch(l); m != nil && filepath.IsAbs(in.Path) {
			file, num, text = in.Path, m[1], m[2]
		} else {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		if _, ok := byFile[file]; !ok {
			order = append(order, file)
		}
		byFile[file] = append(byFile[file], engine.ShownLine{Line: n, Text: strings.TrimSuffix(text, "\r")})
	}
	for _, f := range order {
		if err := shown(ctx, r, c, f, byFile[f], false, false, "Grep"); err != nil {
			return err
		}
	}
	return nil
}

// claudeWritten records the lines an Edit, MultiEdit or Write wrote as the
// session's own: a Write's whole content, an edit's added lines.
func claudeWritten(ctx context.Context, r Runner, c engine.Caller, ev ClaudeEvent) error {
	var in claudeEdit
	if !decode(ev.ToolInput, &in) || !filepath.IsAbs(in.FilePath) {
		return nil
	}
	var out claudeWriteResponse
	decode(ev.ToolResponse, &out)
	if ev.ToolName == "Write" {
		return shown(ctx, r, c, in.FilePath, Numbered(1, TextLines(in.Content)), true, out.Type == "create", "Write")
	}
	var lines []engine.ShownLine
	for _, h := range out.StructuredPatch {
		n := h.NewStart
		for _, l := range h.Lines {
			switch {
			case strings.HasPrefix(l, "+"):
				lines = append(lines, engine.ShownLine{Line: n, Text: strings.TrimSuffix(l[1:], "\r")})
				n++
			case strings.HasPrefix(l, " "):
				n++
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return shown(ctx, r, c, in.FilePath, lines, true, false, ev.ToolName)
}
