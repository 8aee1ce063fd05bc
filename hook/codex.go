package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/result"
)

// Codex's hooks speak Claude Code's wire format (the same event fields, the
// same PreToolUse answer); its tools differ: apply_patch carries the patch
// in tool_input.command, Bash the command line, and its read_file has no
// hook at all.

// CodexSession is the ledger session of a Codex conversation.
func CodexSession(ev ClaudeEvent) string { return "codex-" + ev.SessionID }

// Codex answers one Codex hook event; like Claude, it never fails. A patch
// it cannot judge exactly as Codex's apply_patch will apply it is refused.
func Codex(ctx context.Context, r judge.Router, ev ClaudeEvent, opt Options) Answer {
	c := engine.Caller{Session: CodexSession(ev), Agent: "codex"}
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	inErr := result.DecodeJudged(ev.ToolInput, &in)
	var command string
	if inErr == nil {
		command = commandText(in.Command)
	}
	var err error
	switch {
	case ev.HookEventName == "PreToolUse" && ev.ToolName == "apply_patch":
		if inErr != nil || json.Unmarshal(in.Command, &command) != nil {
			return codexDeny(codexUnjudged(ctx, r, c, "its tool_input is not the {\"command\": PATCH} sightline reads"))
		}
		if a := codexDeny(codexPatch(ctx, r, c, ev.Cwd, command)); a.Stdout != nil {
			return a
		}
	case ev.HookEventName == "PreToolUse" && ev.ToolName == "Bash":
		// Codex carries out an apply_patch run through the shell itself:
		// judged as the tool's, or refused when sightline cannot read it.
		if inErr != nil && strings.Contains(string(ev.ToolInput), "Begin Patch") {
			return codexDeny(codexUnjudged(ctx, r, c, "its tool_input is not the {\"command\": SCRIPT} sightline reads"))
		}
		cwd, patchText, ok, bad := shellPatch(command, ev.Cwd)
		if bad != "" {
			return codexDeny(codexUnjudged(ctx, r, c, bad))
		}
		if !ok {
			break
		}
		if a := codexDeny(codexPatch(ctx, r, c, cwd, patchText)); a.Stdout != nil {
			return a
		}
	case ev.HookEventName == "PostToolUse" && ev.ToolName == "apply_patch":
		err = codexPatched(ctx, r, c, ev.Cwd, command)
	case ev.HookEventName == "PostToolUse" && ev.ToolName == "Bash":
		if cwd, patchText, ok, _ := shellPatch(command, ev.Cwd); ok {
			err = codexPatched(ctx, r, c, cwd, patchText)
			break
		}
		err = codexShellRead(ctx, r, c, ev.Cwd, command, outputText(ev.ToolResponse))
	case ev.HookEventName == "PreCompact":
		return expire(ctx, r, c, opt, "the context was compacted")
	case ev.HookEventName == "SessionStart" && (ev.Source == "compact" || ev.Source == "clear"):
		return expire(ctx, r, c, opt, "the context was "+map[string]string{"compact": "compacted", "clear": "cleared"}[ev.Source])
	}
	if err != nil {
		return Answer{Stderr: "sightline: " + err.Error() + "\n"}
	}
	return Answer{}
}

// codexDeny is the answer to a PreToolUse event sightline refuses (why),
// with what failed (err) for the user's log; empty when why is "".
func codexDeny(why string, err error) Answer {
	if why == "" {
		if err != nil {
			return Answer{Stderr: "sightline: " + err.Error() + "\n"}
		}
		return Answer{}
	}
	a := Answer{Stdout: denyClaude(why)}
	if err != nil {
		a.Stderr = "sightline: " + err.Error() + "\n"
	}
	return a
}

// commandText is a tool's command: a string, or an argument list whose
// last element is the script of a `bash -lc SCRIPT`.
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		if len(argv) == 3 && strings.HasSuffix(argv[0], "sh") && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") {
			return argv[2]
		}
		return strings.Join(argv, " ")
	}
	return ""
}

// outputText is a shell tool's output: a string, or an object holding it.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil {
		return ""
	}
	for _, k := range []string{"stdout", "output", "aggregated_output", "formatted_output"} {
		if json.Unmarshal(o[k], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func abs(cwd, path string) string {
	if filepath.IsAbs(path) || cwd == "" {
		return path
	}
	return filepath.Join(cwd, path)
}

// codexPatch judges a patch as Codex's apply_patch will apply it (read by
// patch.ParseCodex, its paths resolved against cwd as Codex resolves them):
// an updated file's hunks placed as Codex places them (the check's
// codex dialect); a deleted file, a file added over an existing one, and the
// source of a move (Codex writes the destination, then removes the
// source) need all of their lines; a move's destination passes the
// admission of a write and, when it exists, needs all of its lines, as an
// overwrite. Anything sightline cannot judge so is refused, audited.
func codexPatch(ctx context.Context, r judge.Router, c engine.Caller, cwd, text string) (string, error) {
	files, err := patch.ParseCodex(text)
	if err != nil {
		return codexUnjudged(ctx, r, c, "Codex's apply_patch would not read it ("+err.Error()+"); send one patch from *** Begin Patch to *** End Patch, each file once")
	}
	if len(files) == 0 {
		return codexUnjudged(ctx, r, c, "it changes no file")
	}
	type judged struct {
		path string
		p    engine.CheckParams
	}
	var todo []judged
	seen := map[string]bool{}
	add := func(name string, p engine.CheckParams) string {
		path, why := codexPath(cwd, name)
		if why != "" {
			return why
		}
		// Codex applies the files one after the other: a file named twice
		// would be judged as it is now, and changed as an earlier section
		// left it. (Case folded: a file system may fold it.)
		k := strings.ToLower(path)
		if seen[k] {
			return fmt.Sprintf("it changes %s more than once; sightline judges each file once, as it is now: send one section per file", name)
		}
		seen[k] = true
		p.Caller, p.Tool = c, "apply_patch"
		todo = append(todo, judged{path, p})
		return ""
	}
	for _, f := range files {
		var why string
		switch f.Kind {
		case patch.Delete, patch.Add:
			why = add(f.Path, engine.CheckParams{Whole: true})
		default:
			p := engine.CheckParams{Dialect: engine.DialectCodex, Whole: f.NewPath != ""}
			for _, h := range f.Hunks {
				p.Hunks = append(p.Hunks, engine.CheckHunk{Old: h.Old, New: h.New, Anchors: h.Anchors, EOF: h.EOF})
			}
			why = add(f.Path, p)
			if why == "" && f.NewPath != "" {
				why = add(f.NewPath, engine.CheckParams{Whole: true})
			}
		}
		if why != "" {
			return codexUnjudged(ctx, r, c, why)
		}
	}
	var reasons []string
	for _, j := range todo {
		why, err := check(ctx, r, j.p, j.path)
		if err != nil {
			return why, err
		}
		if why != "" {
			reasons = append(reasons, why)
		}
	}
	return strings.Join(reasons, "\n\n"), nil
}

// shellPatch finds the patch of a shell command that runs apply_patch, as
// Codex intercepts it: the whole script `apply_patch <<'EOF'` (or
// applypatch, any delimiter, quoted or not), the patch, the delimiter,
// optionally after `cd DIR && `. ok says the command is one; bad, when not
// "", says why a command that names apply_patch and holds a patch cannot be
// read so (Codex may still apply it); cwd is where its paths resolve.
func shellPatch(command, cwd string) (dir, text string, ok bool, bad string) {
	if !strings.Contains(command, "*** Begin Patch") || !strings.Contains(command, "apply_patch") && !strings.Contains(command, "applypatch") {
		return "", "", false, ""
	}
	const cannot = "the shell command runs apply_patch in a form sightline does not read exactly; send the patch with the apply_patch tool"
	script := strings.TrimSpace(command)
	dir = cwd
	if rest, found := strings.CutPrefix(script, "cd "); found {
		arg, after, found := strings.Cut(rest, " && ")
		if !found {
			return "", "", false, cannot
		}
		arg = strings.TrimSpace(arg)
		if len(arg) >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[len(arg)-1] == arg[0] {
			arg = arg[1 : len(arg)-1]
		}
		if arg == "" || strings.ContainsAny(arg, "'\"$`\\ \t;&|<>()*?[]{}~") {
			return "", "", false, cannot
		}
		if !filepath.IsAbs(arg) {
			arg = cwd + string(filepath.Separator) + arg
		}
		if !filepath.IsAbs(arg) || dotDotAfterLink(arg) {
			return "", "", false, cannot
		}
		dir, script = filepath.Clean(arg), strings.TrimSpace(after)
	}
	head, body, found := strings.Cut(script, "\n")
	if !found {
		return "", "", false, cannot
	}
	delim, found := strings.CutPrefix(head, "apply_patch <<")
	if !found {
		delim, found = strings.CutPrefix(head, "applypatch <<")
	}
	if !found {
		return "", "", false, cannot
	}
	delim = strings.TrimSpace(delim)
	if len(delim) >= 2 && (delim[0] == '\'' || delim[0] == '"') && delim[len(delim)-1] == delim[0] {
		delim = delim[1 : len(delim)-1]
	}
	if delim == "" || strings.ContainsAny(delim, "'\"$`\\ \t;&|<>()-") {
		return "", "", false, cannot
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if l != delim {
			continue
		}
		if strings.TrimSpace(strings.Join(lines[i+1:], "\n")) != "" {
			return "", "", false, cannot
		}
		return dir, strings.Join(lines[:i], "\n"), true, ""
	}
	return "", "", false, cannot
}

// codexPath resolves a patch's path as Codex does: against the folder it
// runs in, unless absolute, ".." taken by name. why says what sightline
// cannot resolve so: no folder to resolve against, or a ".." after a
// symbolic link, which an older Codex leaves to the system to resolve from
// the link's target.
func codexPath(cwd, name string) (path, why string) {
	if name == "" {
		return "", "a file of the patch has an empty path"
	}
	joined := name
	if !filepath.IsAbs(name) {
		if !filepath.IsAbs(cwd) {
			return "", fmt.Sprintf("the hook event gives no absolute folder to resolve %q against", name)
		}
		joined = cwd + string(filepath.Separator) + name
	}
	if dotDotAfterLink(joined) {
		return "", fmt.Sprintf("%q goes up (..) from a symbolic link, which Codex releases resolve differently; name the file without going up from a link", name)
	}
	return filepath.Clean(joined), ""
}

// dotDotAfterLink reports whether a ".." of an absolute path follows a
// symbolic link.
func dotDotAfterLink(path string) bool {
	vol := filepath.VolumeName(path)
	cur := vol + string(filepath.Separator)
	for _, el := range strings.Split(filepath.ToSlash(path[len(vol):]), "/") {
		switch el {
		case "", ".":
		case "..":
			if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				return true
			}
			cur = filepath.Dir(cur)
		default:
			cur = filepath.Join(cur, el)
		}
	}
	return false
}

// codexUnjudged refuses a patch sightline cannot judge as Codex will apply
// it, through the check, which audits the refusal.
func codexUnjudged(ctx context.Context, r judge.Router, c engine.Caller, why string) (string, error) {
	refusal := "sightline refused this patch because it cannot judge it as Codex's apply_patch will apply it: " + why + ". Nothing was changed."
	res, err := r.Call(ctx, ops.Check, engine.CheckParams{Caller: c, Tool: "apply_patch", Unjudged: why})
	if err != nil {
		return refusal, fmt.Errorf("auditing the refusal of an apply_patch: %w", err)
	}
	if cr, ok := res.(engine.CheckResult); !ok || cr.Error != result.Unjudged {
		return refusal, fmt.Errorf("auditing the refusal of an apply_patch: an unexpected answer %v", res)
	}
	return refusal, nil
}

// codexPatched records a patch's added lines as the session's own: the
// new side of each hunk, found in the file as it is now.
func codexPatched(ctx context.Context, r judge.Router, c engine.Caller, cwd, text string) error {
	files, err := patch.ParseCodex(text)
	if err != nil {
		return nil // Codex applied nothing
	}
	for _, f := range files {
		name := f.Path
		if f.NewPath != "" {
			name = f.NewPath
		}
		path, why := codexPath(cwd, name)
		if f.Kind == patch.Delete || why != "" {
			continue
		}
		var hunks []engine.CheckHunk
		for _, h := range f.Hunks {
			hunks = append(hunks, engine.CheckHunk{Old: h.Old, New: h.New})
		}
		if f.Kind == patch.Add {
			var lines []string
			for _, h := range f.Hunks {
				lines = append(lines, h.New...)
			}
			if err := shown(ctx, r, c, path, judge.Numbered(1, lines), true, true, "apply_patch"); err != nil {
				return err
			}
			continue
		}
		p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(r.Key(path))},
			Hunks: hunks, Authored: true, Tool: "apply_patch"}
		res, err := r.Call(ctx, ops.Shown, p)
		if err != nil {
			return fmt.Errorf("recording what apply_patch wrote in %s: %w", path, err)
		}
		if o := ops.Shown.Outcome(res); !o.OK {
			return fmt.Errorf("recording what apply_patch wrote in %s: %s: %s", path, o.Error, o.Message)
		}
	}
	return nil
}

// Compiled on first use, not at the start of every sightline process.
var (
	sedRange  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)(?:,(\d+))?p$`) })
	numbered1 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ *(\d+)\t(.*)$`) })
)

// codexShellRead records what a shell command that only reads showed
// (shellRead).
func codexShellRead(ctx context.Context, r judge.Router, c engine.Caller, cwd, command, out string) error {
	file, lines, _, tool := shellRead(command, out)
	if len(lines) == 0 {
		return nil
	}
	return shown(ctx, r, c, abs(cwd, file), lines, false, false, tool)
}

// shellRead is the one reading of a shell command's output, for every
// agent whose shell tool's output the hook sees: the lines of the file it
// showed, when the command only reads and says unambiguously which lines
// of which file its output is: cat F, head -n N F, tail -n +K F, sed -n
// 'A,Bp' F, nl -ba F (piped into sed -n 'A,Bp' or not), grep -n / rg -n
// PATTERN F. positional says the output's lines are numbered by their
// place in it (cat, head, tail, sed), not by numbers they carry; tool
// names the command for the audit. None when the command is not one of
// these.
func shellRead(command, out string) (file string, lines []engine.ShownLine, positional bool, tool string) {
	if out == "" {
		return "", nil, false, ""
	}
	stages := strings.Split(command, "|")
	if len(stages) > 2 {
		return "", nil, false, ""
	}
	first, ok := words(stages[0])
	if !ok || len(first) < 2 {
		return "", nil, false, ""
	}
	outLines := judge.TextLines(out)
	tool = "shell " + filepath.Base(first[0])
	switch prog := filepath.Base(first[0]); {
	case prog == "nl" && len(stages) <= 2:
		// nl -ba F: every line numbered, so the output names its lines.
		if len(first) != 3 || first[1] != "-ba" {
			return "", nil, false, ""
		}
		if len(stages) == 2 {
			second, ok := words(stages[1])
			if !ok || len(second) != 3 || second[0] != "sed" || second[1] != "-n" || !sedRange().MatchString(second[2]) {
				return "", nil, false, ""
			}
		}
		file = first[2]
		for _, l := range outLines {
			if m := numbered1().FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				lines = append(lines, engine.ShownLine{Line: n, Text: m[2]})
			}
		}
	case len(stages) == 2:
		return "", nil, false, ""
	case prog == "cat" && len(first) == 2:
		file, lines, positional = first[1], judge.Numbered(1, outLines), true
	case prog == "head" && len(first) == 4 && first[1] == "-n":
		file, lines, positional = first[3], judge.Numbered(1, outLines), true
	case prog == "tail" && len(first) == 4 && first[1] == "-n" && strings.HasPrefix(first[2], "+"):
		k, err := strconv.Atoi(first[2][1:])
		if err != nil {
			return "", nil, false, ""
		}
		file, lines, positional = first[3], judge.Numbered(max(k, 1), outLines), true
	case prog == "sed" && len(first) == 4 && first[1] == "-n":
		m := sedRange().FindStringSubmatch(first[2])
		if m == nil {
			return "", nil, false, ""
		}
		a, _ := strconv.Atoi(m[1])
		file, lines, positional = first[3], judge.Numbered(max(a, 1), outLines), true
	case (prog == "grep" || prog == "rg") && len(first) == 4 && first[1] == "-n":
		// One file: "N:text" lines (grep prints no name for one file, nor
		// does rg).
		file = first[3]
		for _, l := range outLines {
			if m := grepLine().FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				lines = append(lines, engine.ShownLine{Line: n, Text: m[2]})
			}
		}
	default:
		return "", nil, false, ""
	}
	return file, lines, positional, tool
}

// words splits a simple command line into words, with single and double
// quotes; anything a shell would expand or chain makes it not simple.
func words(s string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ' || ch == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		case strings.IndexByte("$`;&<>(){}*?[]\\\n", ch) >= 0:
			return nil, false
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		out = append(out, cur.String())
	}
	return out, true
}
