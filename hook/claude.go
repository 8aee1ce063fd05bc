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
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
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

// ParseClaude decodes an event as strictly as sightline judges it
// (result.DecodeJudged: exact member names, no member twice); an error says
// what is wrong with it.
func ParseClaude(raw []byte) (ClaudeEvent, error) {
	var ev ClaudeEvent
	if err := result.DecodeJudged(raw, &ev); err != nil {
		return ev, fmt.Errorf("the hook event cannot be read: %w", err)
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
	FilePath *string `json:"file_path"`
	Offset   int     `json:"offset"`
	Limit    int     `json:"limit"`
}

// claudeReadResponse is a Read's documented answer; another shape records
// nothing (the ledger never claims more than was shown).
type claudeReadResponse struct {
	Type string `json:"type"`
	File *struct {
		FilePath  string  `json:"filePath"`
		Content   *string `json:"content"`
		NumLines  int     `json:"numLines"`
		StartLine int     `json:"startLine"`
	} `json:"file"`
}

// claudeEditInput is Edit's input, MultiEdit's (edits) and Write's
// (content), as Claude Code's schemas name them; a member they require is
// a pointer, to tell it missing.
type claudeEditInput struct {
	FilePath   *string           `json:"file_path"`
	OldString  *string           `json:"old_string"`
	NewString  *string           `json:"new_string"`
	ReplaceAll *bool             `json:"replace_all"`
	Edits      *[]claudeEditStep `json:"edits"`
	Content    *string           `json:"content"`
}

type claudeEditStep struct {
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll *bool   `json:"replace_all"`
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

// Claude answers one Claude Code hook event. A change of a file it cannot
// judge exactly as Claude Code's tool will make it (an input not as
// documented, a path it cannot resolve, a text it cannot place, a server
// gone) is denied with the reason, and audited; what it cannot record is
// said on standard error.
func Claude(ctx context.Context, r judge.Router, ev ClaudeEvent, opt Options) Answer {
	c := engine.Caller{Session: ClaudeSession(ev), Agent: "claude-code"}
	switch ev.HookEventName {
	case "PreToolUse":
		return claudePre(ctx, r, c, ev, opt)
	case "PostToolUse":
		return claudePost(ctx, r, c, ev, opt)
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
func expire(ctx context.Context, r judge.Router, c engine.Caller, opt Options, why string) Answer {
	if opt.KeepReads {
		return Answer{}
	}
	res, err := r.Call(ctx, ops.Reset, engine.ResetParams{Caller: c})
	if err != nil {
		return Answer{Stderr: fmt.Sprintf("sightline: %s, but session %s could not be reset: %v\n", why, c.Session, err)}
	}
	if o := ops.Reset.Outcome(res); !o.OK {
		return Answer{Stderr: fmt.Sprintf("sightline: %s, but session %s could not be reset: %s\n", why, c.Session, o.Message)}
	}
	return Answer{}
}

func claudePre(ctx context.Context, r judge.Router, c engine.Caller, ev ClaudeEvent, opt Options) Answer {
	switch ev.ToolName {
	case "Edit", "MultiEdit", "Write":
	default:
		return Answer{} // not a tool that writes a file
	}
	if opt.Root == "" {
		return refuseUnjudged(ctx, r, c, ev.ToolName, "", "the project's root is unknown (Claude Code gave the hook no CLAUDE_PROJECT_DIR), so sightline cannot tell which workspace guards the file. Nothing was changed; tell the user (the hook's command can name the root: `sightline hook claude --root DIR`)")
	}
	var in claudeEditInput
	if err := decodeInput(ev.ToolInput, &in); err != nil {
		return refuseUnjudged(ctx, r, c, ev.ToolName, "", "its tool_input "+err.Error()+". Nothing was changed; retry the call with the tool's documented parameters")
	}
	path, why := claudePath(ev.Cwd, in.FilePath)
	if why != "" {
		return refuseUnjudged(ctx, r, c, ev.ToolName, "", why)
	}
	path, r = place(r, opt, path)
	p := engine.CheckParams{Caller: c, Tool: ev.ToolName, Dialect: engine.DialectClaudeCode}
	bad := func(what string) Answer {
		return refuseUnjudged(ctx, r, c, ev.ToolName, path, "its tool_input "+what+". Nothing was changed; retry the call with the tool's documented parameters")
	}
	switch ev.ToolName {
	case "Edit":
		if in.OldString == nil || in.NewString == nil {
			return bad("has no old_string or no new_string")
		}
		p.Old = []engine.OldText{{Text: *in.OldString, New: in.NewString, All: in.ReplaceAll != nil && *in.ReplaceAll}}
	case "MultiEdit":
		if in.Edits == nil || len(*in.Edits) == 0 {
			return bad("has no edits")
		}
		for i, e := range *in.Edits {
			if e.OldString == nil || e.NewString == nil {
				return bad(fmt.Sprintf("has no old_string or no new_string in edit %d", i+1))
			}
			p.Old = append(p.Old, engine.OldText{Text: *e.OldString, New: e.NewString, All: e.ReplaceAll != nil && *e.ReplaceAll})
		}
	case "Write":
		if in.Content == nil {
			return bad("has no content")
		}
		p.Whole = true
	}
	why, err := check(ctx, r, p, path)
	a := Answer{}
	if err != nil {
		a.Stderr = "sightline: " + err.Error() + "\n"
	}
	if why != "" {
		a.Stdout = denyClaude(why)
	}
	return a
}

// decodeInput decodes a tool's input as sightline judges it: exactly as
// named, no member twice; an absent input is an error too.
func decodeInput(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("is missing")
	}
	if err := result.DecodeJudged(raw, v); err != nil {
		return fmt.Errorf("cannot be read exactly as Claude Code reads it (%v)", err)
	}
	return nil
}

// claudePath is the absolute path Claude Code's tools act on: file_path,
// a relative one resolved against the event's cwd as the tools resolve
// it; why says what sightline cannot resolve exactly.
func claudePath(cwd string, fp *string) (path, why string) {
	const next = ". Nothing was changed; retry with the file's absolute path"
	switch {
	case fp == nil || *fp == "":
		return "", "its tool_input has no file_path" + next
	case strings.ContainsRune(*fp, 0) || strings.TrimSpace(*fp) != *fp || strings.HasPrefix(*fp, "~"):
		return "", fmt.Sprintf("sightline cannot tell which file the path %q names as Claude Code would", *fp) + next
	case filepath.IsAbs(*fp):
		return filepath.Clean(*fp), ""
	case !filepath.IsAbs(cwd):
		return "", fmt.Sprintf("the path %q is relative and the event has no absolute cwd to resolve it against", *fp) + next
	}
	return filepath.Join(cwd, *fp), ""
}

// place is where a file is judged, and under which name: the workspace
// for a file under its root, named so or reached through links (the
// agent's tool writes through them); another repository for a file in one
// (Elsewhere); else the workspace, which leaves a file outside it to the
// agent's own rules.
func place(r judge.Router, opt Options, path string) (string, judge.Router) {
	if within(opt.Root, path) {
		return path, r
	}
	land := landing(path)
	if real, err := filepath.EvalSymlinks(opt.Root); err == nil && within(real, land) {
		rel, _ := filepath.Rel(real, land)
		return filepath.Join(opt.Root, rel), r
	}
	if opt.Elsewhere != nil {
		if o := opt.Elsewhere(land); o != nil {
			return land, o
		}
	}
	return path, r
}

// landing is the file a write of path outside the workspace lands on,
// through the links the system follows (the agent's tool writes through
// them): the path of an existing file, or its folder's, resolved.
func landing(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}

// within reports whether path lies under root, as named.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// refuseUnjudged denies a change the hook could not read exactly as Claude
// Code will carry it out, audited (refuseWith).
func refuseUnjudged(ctx context.Context, r judge.Router, c engine.Caller, tool, path, why string) Answer {
	return refuseWith(ctx, r, c, denyClaude, tool, path, why)
}

// Unreadable answers an event of an agent ("claude", "codex": the same wire
// format) that cannot be read exactly (why): a PreToolUse, or an event whose
// name cannot be told, is denied, and the refusal audited; another event
// records nothing.
func Unreadable(ctx context.Context, r judge.Router, agent string, raw []byte, why string) Answer {
	var peek struct {
		SessionID     string `json:"session_id"`
		HookEventName string `json:"hook_event_name"`
		ToolName      string `json:"tool_name"`
	}
	if json.Unmarshal(raw, &peek) == nil && peek.HookEventName != "" && peek.HookEventName != "PreToolUse" {
		return Answer{Stderr: "sightline: " + why + "; nothing was recorded\n"}
	}
	ev := ClaudeEvent{SessionID: peek.SessionID}
	c := engine.Caller{Session: ClaudeSession(ev), Agent: "claude-code"}
	if agent == "codex" {
		c = engine.Caller{Session: CodexSession(ev), Agent: "codex"}
	}
	return refuseUnjudged(ctx, r, c, peek.ToolName, "", why+". Nothing was changed; retry the call with the tool's documented parameters")
}

// DenyClaude is a PreToolUse answer that denies the tool call with reason.
func DenyClaude(reason string) []byte { return denyClaude(reason) }

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

func claudePost(ctx context.Context, r judge.Router, c engine.Caller, ev ClaudeEvent, opt Options) Answer {
	if opt.Root == "" {
		// Which workspace the lines belong to is unknown: nothing is
		// recorded (every change is refused meanwhile).
		return Answer{}
	}
	var err error
	switch ev.ToolName {
	case "Read":
		err = claudeReadShown(ctx, r, c, ev, opt)
	case "Grep":
		err = claudeGrepShown(ctx, r, c, ev, opt)
	case "Bash":
		err = claudeBashShown(ctx, r, c, ev, opt)
	case "Edit", "MultiEdit", "Write":
		err = claudeWritten(ctx, r, c, ev, opt)
	}
	if err != nil {
		return Answer{Stderr: "sightline: " + err.Error() + "\n"}
	}
	return Answer{}
}

// claudeReadShown records what a Read showed: the response's lines from its
// start line. Without a response, offset and limit as the tool defaults
// them, lines longer than the tool's cut excepted; a response of another
// shape than the documented one records nothing.
func claudeReadShown(ctx context.Context, r judge.Router, c engine.Caller, ev ClaudeEvent, opt Options) error {
	var in claudeRead
	if decodeInput(ev.ToolInput, &in) != nil {
		return nil
	}
	path, why := claudePath(ev.Cwd, in.FilePath)
	if why != "" {
		return nil
	}
	path, r = place(r, opt, path)
	if len(ev.ToolResponse) > 0 {
		var out claudeReadResponse
		if err := result.DecodeJudged(ev.ToolResponse, &out); err != nil || out.File == nil || out.File.Content == nil || out.Type != "text" {
			return nil // an image, a notebook, a PDF, or an answer not as documented: no lines
		}
		start := max(out.File.StartLine, 1)
		return shownRun(ctx, r, c, path, start, *out.File.Content, false, false, "Read")
	}
	// No content to compare: the range the tool reads, trusted as shown,
	// but only lines the tool did not cut.
	start := max(in.Offset, 1)
	limit := in.Limit
	if limit <= 0 {
		limit = readLimit
	}
	p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(r.Key(path))}, Tool: "Read"}
	p.Range = &ledger.Range{Start: start, End: start + limit - 1}
	p.Cut = readLineCut
	res, err := r.Call(ctx, ops.Shown, p)
	if err != nil {
		return fmt.Errorf("recording what Read showed of %s: %w", path, err)
	}
	if o := ops.Shown.Outcome(res); !o.OK {
		return fmt.Errorf("recording what Read showed of %s: %s: %s", path, o.Error, o.Message)
	}
	return nil
}

// Compiled on first use, not at the start of every sightline process.
var (
	// An absolute path as the system writes one: /a/b, or C:\a\b on Windows.
	grepWithFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((?:[A-Za-z]:)?[/\\][^:]*):(\d+):(.*)$`) })
	grepLine     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+):(.*)$`) })
)

// claudeGrepShown records the lines a content search showed with their
// numbers (Grep with -n): "path:line:text", or "line:text" for one file.
func claudeGrepShown(ctx context.Context, r judge.Router, c engine.Caller, ev ClaudeEvent, opt Options) error {
	var in claudeGrep
	var out claudeGrepResponse
	if decodeInput(ev.ToolInput, &in) != nil || decodeInput(ev.ToolResponse, &out) != nil || out.Mode != "content" {
		return nil
	}
	byFile := map[string][]engine.ShownLine{}
	var order []string
	for _, l := range judge.TextLines(out.Content) {
		file, num, text := "", "", ""
		if m := grepWithFile().FindStringSubmatch(l); m != nil && filepath.IsAbs(m[1]) {
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
		p, fr := place(r, opt, f)
		if err := shown(ctx, fr, c, p, byFile[f], false, false, "Grep"); err != nil {
			return err
		}
	}
	return nil
}

// claudeBashResponse is the Bash tool's documented answer: what sightline
// needs to know the model was shown stdout, inline and whole.
type claudeBashResponse struct {
	Stdout              *string `json:"stdout"`
	Interrupted         bool    `json:"interrupted"`
	IsImage             bool    `json:"isImage"`
	BackgroundTaskID    string  `json:"backgroundTaskId"`
	PersistedOutputPath string  `json:"persistedOutputPath"`
}

// A mark Claude Code writes where it cut an output short.
var cutMark = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\.\.\. \[\d+ (?:lines|characters) truncated\] \.\.\.$`)
})

// claudeBashShown records what a Bash command that only reads showed, as
// for Codex's shell (shellRead), from what the model was shown of it. An
// output saved to a file (the model saw a preview of it), a command sent
// to the background, an image: nothing. An interrupted output, or one cut
// where Claude Code marks it, counts up to the line before its last or
// the mark, which may be cut short. Claude Code drops an output's leading
// blank lines, so an output numbered by its lines' places (cat, head,
// tail, sed) counts only when its first line is the file's line there:
// asked alone first, the rest only if it counted.
func claudeBashShown(ctx context.Context, r judge.Router, c engine.Caller, ev ClaudeEvent, opt Options) error {
	var in struct {
		Command *string `json:"command"`
	}
	var out claudeBashResponse
	if decodeInput(ev.ToolInput, &in) != nil || in.Command == nil || decodeInput(ev.ToolResponse, &out) != nil || out.Stdout == nil {
		return nil
	}
	if out.PersistedOutputPath != "" || out.BackgroundTaskID != "" || out.IsImage {
		return nil
	}
	ls := judge.TextLines(*out.Stdout)
	for i, l := range ls {
		if cutMark().MatchString(strings.TrimSuffix(l, "\r")) {
			ls = ls[:i]
			for len(ls) > 0 && ls[len(ls)-1] == "" {
				ls = ls[:len(ls)-1] // the blank line Claude Code sets before the mark
			}
			out.Interrupted = true // the line before the mark may be cut short
			break
		}
	}
	if out.Interrupted && len(ls) > 0 {
		ls = ls[:len(ls)-1]
	}
	return shellShown(ctx, r, c, opt, ev.Cwd, *in.Command, strings.Join(ls, "\n"))
}

// shellShown records what a shell command that only reads showed
// (shellRead), run in cwd, from its output as the model was shown it
// whole. An output numbered by its lines' places (cat, head, tail, sed)
// counts only when its first line is the file's line there (an agent may
// drop leading blank lines): asked alone first, the rest only if it
// counted.
func shellShown(ctx context.Context, r judge.Router, c engine.Caller, opt Options, cwd, command, out string) error {
	file, lines, positional, tool := shellRead(command, out)
	if len(lines) == 0 {
		return nil
	}
	path, why := claudePath(cwd, &file)
	if why != "" {
		return nil
	}
	path, r = place(r, opt, path)
	if !positional {
		return shown(ctx, r, c, path, lines, false, false, tool)
	}
	// Lines numbered by their place count only when the first is where
	// the command put it: otherwise which lines the rest are is not known.
	// One call; a refusal records nothing and is not the user's concern
	// (a command's output is not a change).
	p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(r.Key(path))},
		Lines: lines[:min(len(lines), maxShownLines)], Anchored: true, Tool: tool}
	if _, err := r.Call(ctx, ops.Shown, p); err != nil {
		return fmt.Errorf("recording what %s showed of %s: %w", tool, path, err)
	}
	return nil
}

// claudeWritten records the lines an Edit, MultiEdit or Write wrote as the
// session's own: a Write's whole content, an edit's added lines.
func claudeWritten(ctx context.Context, r judge.Router, c engine.Caller, ev ClaudeEvent, opt Options) error {
	var in claudeEditInput
	if decodeInput(ev.ToolInput, &in) != nil {
		return nil
	}
	path, why := claudePath(ev.Cwd, in.FilePath)
	if why != "" {
		return nil
	}
	path, r = place(r, opt, path)
	var out claudeWriteResponse
	if decodeInput(ev.ToolResponse, &out) != nil {
		return nil // not the documented answer: nothing is known to be written
	}
	if ev.ToolName == "Write" {
		if in.Content == nil {
			return nil
		}
		return shownRun(ctx, r, c, path, 1, *in.Content, true, out.Type == "create", "Write")
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
	return shown(ctx, r, c, path, lines, true, false, ev.ToolName)
}
