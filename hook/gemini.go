package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
)

// Gemini is Gemini CLI's door (.gemini/settings.json's hooks): BeforeTool
// and AfterTool on its file and shell tools, BeforeModel to see a
// compression, PreCompress for /compress.
var Gemini = &Door{Name: "gemini", Agent: "gemini-cli", Parse: parseGemini, Deny: denyGemini, Tools: geminiTools}

// geminiEvent is a Gemini CLI hook event: the members sightline uses.
type geminiEvent struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Trigger       string          `json:"trigger"`
	LLMRequest    *struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	} `json:"llm_request"`
}

// geminiCompressed is the model's turn Gemini CLI puts after the summary
// that replaces a compressed history: the mark of a compression in every
// model call after it, unless the user's turn before it is Gemini CLI's
// own environment's context (geminiContextMark), which it answers with the
// same words in every chat's first turns. Unsure, it is a compression: the
// ledger then claims less, never more.
const (
	geminiCompressed  = "Got it. Thanks for the additional context!"
	geminiSummary     = "<state_snapshot>"
	geminiContextMark = "<session_context>"
)

// geminiIsSummary reports whether a user turn Gemini CLI answered with
// geminiCompressed is a compressed history's summary.
func geminiIsSummary(content string) bool {
	return strings.Contains(content, geminiSummary) || !strings.HasPrefix(strings.TrimSpace(content), geminiContextMark)
}

func parseGemini(raw []byte) (Event, error) {
	var g geminiEvent
	err := decodeJudged(raw, &g)
	ev := Event{Session: g.SessionID, Cwd: g.Cwd, Tool: g.ToolName, Args: g.ToolInput, Output: g.ToolResponse}
	switch g.HookEventName {
	case "BeforeTool":
		ev.Phase = Before
	case "AfterTool":
		ev.Phase = After
	case "PreCompress":
		// "auto" comes before every model call, compressing or not; a
		// compression shows in the model calls after it (BeforeModel).
		// /compress ("manual") compresses.
		if g.Trigger == "manual" {
			ev.Phase, ev.Why = Expire, "the context was compressed"
		}
	case "BeforeModel":
		if g.LLMRequest != nil {
			ms := g.LLMRequest.Messages
			for i := 1; i < len(ms); i++ {
				if ms[i].Role == "model" && ms[i].Content == geminiCompressed && ms[i-1].Role == "user" && geminiIsSummary(ms[i-1].Content) {
					sum := sha256.Sum256([]byte(ms[i-1].Content))
					ev.Phase, ev.Why, ev.Epoch = Expire, "the context was compressed", hex.EncodeToString(sum[:16])
					break
				}
			}
		}
	}
	if err != nil {
		return ev, fmt.Errorf("the hook event cannot be read: %w", err)
	}
	if g.SessionID == "" || g.HookEventName == "" {
		return ev, fmt.Errorf("the hook event has no session_id or hook_event_name")
	}
	return ev, nil
}

// denyGemini is BeforeTool's refusal; Gemini CLI gives the model "Tool
// execution blocked: REASON".
func denyGemini(reason string) []byte {
	b, _ := json.Marshal(map[string]string{"decision": "deny", "reason": reason})
	return append(b, '\n')
}

// geminiResponse is AfterTool's tool_response: llmContent is what the
// model was given (a text, or a list of parts).
type geminiResponse struct {
	LLMContent json.RawMessage `json:"llmContent"`
	Error      json.RawMessage `json:"error"`
}

// geminiText is the text the model was given, when the tool succeeded and
// gave one text; ok false otherwise, or when Gemini CLI cut the output
// short and saved it to a file.
func geminiText(out json.RawMessage) (string, bool) {
	var r geminiResponse
	if json.Unmarshal(out, &r) != nil || len(r.Error) > 0 && string(r.Error) != "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(r.LLMContent, &s) != nil || strings.HasPrefix(s, "Output too large.") {
		return "", false
	}
	return s, true
}

// The header Gemini CLI's read_file puts before a part of a file, and the
// project context it may add after it.
var (
	geminiPart = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\nIMPORTANT: The file content has been truncated\.\nStatus: Showing lines (\d+)-(\d+) of \d+ total lines\.\n[^\n]*\n\n--- FILE CONTENT \(truncated\) ---\n`)
	})
	geminiGrepLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^L(\d+)[:-] (.*)$`) })
	geminiPGID     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\nProcess Group PGID: \d+$`) })
	geminiTrailer  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\n(?:Error|Exit Code|Signal|Background PIDs): [^\n]*$`)
	})
)

const geminiContext = "\n\n--- Newly Discovered Project Context ---\n"

// geminiFile is a file's text as read_file gives it: from line 1, or from
// the line its header names; nil when it is not a file's text.
func geminiFile(path, s string) []Shown {
	start := 1
	if m := geminiPart().FindStringSubmatch(s); m != nil {
		var err error
		if start, err = strconv.Atoi(m[1]); err != nil || start < 1 {
			return nil
		}
		s = s[len(m[0]):]
	} else if strings.HasPrefix(s, "\nIMPORTANT:") {
		return nil
	}
	if i := strings.Index(s, geminiContext); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return nil
	}
	return []Shown{{Path: path, Lines: judge.Numbered(start, judge.TextLines(s))}}
}

var geminiTools = map[string]Tool{
	"read_file": {Op: OpRead,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				FilePath  *string `json:"file_path"`
				StartLine *int    `json:"start_line"`
				EndLine   *int    `json:"end_line"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.FilePath == nil {
				return Call{}, need("file_path")
			}
			return Call{Path: *in.FilePath}, nil
		},
		Shown: func(c Call, out json.RawMessage) []Shown {
			s, ok := geminiText(out)
			if !ok {
				return nil
			}
			return geminiFile(c.Path, s)
		}},
	"read_many_files": {Op: OpRead,
		Args: func(raw json.RawMessage) (Call, error) { return Call{}, nil },
		Shown: func(_ Call, out json.RawMessage) []Shown {
			// A list of parts: "--- PATH ---\n\nTEXT\n\n" per file read.
			var r geminiResponse
			var parts []json.RawMessage
			if json.Unmarshal(out, &r) != nil || len(r.Error) > 0 && string(r.Error) != "null" || json.Unmarshal(r.LLMContent, &parts) != nil {
				return nil
			}
			var all []Shown
			for _, p := range parts {
				var s string
				if json.Unmarshal(p, &s) != nil || !strings.HasPrefix(s, "--- ") {
					continue
				}
				head, rest, ok := strings.Cut(s, " ---\n\n")
				if !ok || !strings.HasSuffix(rest, "\n\n") || strings.HasPrefix(rest, "[WARNING: This file was truncated.") {
					continue
				}
				all = append(all, geminiFile(head[len("--- "):], strings.TrimSuffix(rest, "\n\n"))...)
			}
			return all
		}},
	"replace": {Op: OpReplace,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				FilePath      *string `json:"file_path"`
				Instruction   *string `json:"instruction"`
				OldString     *string `json:"old_string"`
				NewString     *string `json:"new_string"`
				AllowMultiple *bool   `json:"allow_multiple"`
			}
			if err := decodeArgs(raw, &in); err != nil {
				return Call{}, err
			}
			if in.FilePath == nil || in.OldString == nil || in.NewString == nil {
				return Call{}, need("file_path, old_string or new_string")
			}
			return Call{Path: *in.FilePath, Edits: []engine.OldText{{Text: *in.OldString, New: in.NewString,
				All: in.AllowMultiple != nil && *in.AllowMultiple}}}, nil
		},
		Done: func(out json.RawMessage) (bool, bool) {
			// An empty old_string makes a new file.
			s, ok := geminiText(out)
			created := strings.HasPrefix(s, "Created new file: ")
			return ok && (created || strings.HasPrefix(s, "Successfully modified file: ")), created
		}},
	"write_file": {Op: OpWrite,
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
		Done: func(out json.RawMessage) (bool, bool) {
			s, ok := geminiText(out)
			created := strings.HasPrefix(s, "Successfully created and wrote to new file: ")
			return ok && (created || strings.HasPrefix(s, "Successfully overwrote file: ")), created
		}},
	"grep_search": geminiGrep,
	// The name it had before (Gemini CLI still takes it).
	"search_file_content": geminiGrep,
	"run_shell_command": {Op: OpShell,
		Args: func(raw json.RawMessage) (Call, error) {
			var in struct {
				Command *string `json:"command"`
				DirPath *string `json:"dir_path"`
			}
			// Other members (description, is_background) change nothing
			// sightline reads: a background command's answer says so.
			if err := json.Unmarshal(raw, &in); err != nil || in.Command == nil {
				return Call{}, need("command")
			}
			c := Call{Command: *in.Command}
			if in.DirPath != nil {
				c.Dir = *in.DirPath
			}
			return c, nil
		},
		Stdout: func(out json.RawMessage) (string, bool) {
			// "Output: TEXT" and the process group, or more lines after
			// the output (an error, an exit code, a signal) that cannot be
			// told from it.
			s, ok := geminiText(out)
			if !ok {
				return "", false
			}
			if t, ok := strings.CutPrefix(s, "<untrusted_context>\n"); ok {
				if s, ok = strings.CutSuffix(t, "\n</untrusted_context>"); !ok {
					return "", false
				}
			}
			s, ok = strings.CutPrefix(s, "Output: ")
			if !ok {
				return "", false
			}
			if loc := geminiPGID().FindStringIndex(s); loc != nil {
				s = s[:loc[0]]
			}
			if geminiTrailer().MatchString(s) || s == "(empty)" {
				return "", false
			}
			return s, true
		}},
}

// geminiGrep is grep_search: "File: PATH" (relative to the folder searched)
// then its lines, "LN: text" for a match, "LN- text" for the lines around.
var geminiGrep = Tool{Op: OpRead,
	Args: func(raw json.RawMessage) (Call, error) {
		var in struct {
			DirPath *string `json:"dir_path"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			return Call{}, need("pattern")
		}
		c := Call{}
		if in.DirPath != nil {
			c.Dir = *in.DirPath
		}
		return c, nil
	},
	Shown: func(_ Call, out json.RawMessage) []Shown {
		s, ok := geminiText(out)
		if !ok || !strings.HasPrefix(s, "Found ") {
			return nil
		}
		var all []Shown
		for _, l := range strings.Split(s, "\n") {
			if f, ok := strings.CutPrefix(l, "File: "); ok {
				all = append(all, Shown{Path: f})
				continue
			}
			m := geminiGrepLine().FindStringSubmatch(l)
			if m == nil || len(all) == 0 {
				continue
			}
			n, _ := strconv.Atoi(m[1])
			all[len(all)-1].Lines = append(all[len(all)-1].Lines, engine.ShownLine{Line: n, Text: m[2]})
		}
		return all
	}}
