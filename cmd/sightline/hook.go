package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/hook"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/route"
)

const hookUsage = "usage: sightline hook AGENT [--keep-reads] [--root DIR] < EVENT | sightline hook install|uninstall AGENT [--user|--project] [--dry-run]\n  AGENT: claude, codex, gemini, copilot, cursor, cline, opencode"

// doors are the agents whose hooks go through hook.Door, by the hook
// command's word; rootEnv names the variable an agent gives its hooks the
// project's folder in.
var doors = map[string]struct {
	door    *hook.Door
	rootEnv string
}{
	"gemini":   {hook.Gemini, "GEMINI_PROJECT_DIR"},
	"copilot":  {hook.Copilot, ""},
	"cursor":   {hook.Cursor, ""},
	"cline":    {hook.Cline, ""},
	"opencode": {hook.Opencode, ""},
}

// hookTimeout bounds one hook call: the agent waits for it before its tool
// runs.
const hookTimeout = 20 * time.Second

func runHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, hookUsage)
		return exitUsage
	}
	switch args[0] {
	case "claude", "codex":
		fs := flag.NewFlagSet("hook "+args[0], flag.ContinueOnError)
		keep := fs.Bool("keep-reads", false, "keep what was read across a context compaction or clear")
		root := fs.String("root", "", "claude: the project's root when Claude Code gives no CLAUDE_PROJECT_DIR")
		if _, ok := parseFlags(fs, args[1:], stderr); !ok {
			return exitUsage
		}
		opt := hook.Options{KeepReads: *keep}
		if args[0] == "claude" {
			opt.Root = claudeRoot(os.Getenv("CLAUDE_PROJECT_DIR"), *root)
		}
		return runAgentHook(ctx, args[0], stdin, stdout, stderr, opt)
	case "gemini", "copilot", "cursor", "cline", "opencode":
		fs := flag.NewFlagSet("hook "+args[0], flag.ContinueOnError)
		keep := fs.Bool("keep-reads", false, "keep what was read across a context compaction or clear")
		root := fs.String("root", "", "the project's root when the agent's event gives none")
		if _, ok := parseFlags(fs, args[1:], stderr); !ok {
			return exitUsage
		}
		d := doors[args[0]]
		env := ""
		if d.rootEnv != "" {
			env = os.Getenv(d.rootEnv)
		}
		return runDoorHook(ctx, d.door, stdin, stdout, stderr, hook.Options{KeepReads: *keep}, env, *root)
	case "install", "uninstall":
		return runHookInstall(args[0], args[1:], stdout, stderr)
	}
	fmt.Fprintln(stderr, hookUsage)
	return exitUsage
}

// runAgentHook answers one hook event of an agent (Claude Code, Codex: the
// same wire format). It exits 0 whatever happens: a change it cannot judge
// is denied on standard output, and audited; what it could not do otherwise
// is said on standard error. Claude Code's workspace is opt.Root (the
// project it was started in; a file in another repository is judged in
// that one), never the event's cwd, which follows the agent's cd; Codex's
// is the repository of the event's cwd, the session's own folder, which
// Codex fixes when the session starts and resolves the patch's paths
// against.
func runAgentHook(ctx context.Context, agent string, stdin io.Reader, stdout, stderr io.Writer, opt hook.Options) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "sightline: the hook failed (%v)\n", r)
			stdout.Write(hook.DenyClaude(fmt.Sprintf("sightline refused this change because it failed judging it (%v). Nothing was changed; tell the user.", r)))
			code = exitOK
		}
	}()
	raw, rerr := io.ReadAll(io.LimitReader(stdin, hook.MaxEvent+1))
	ev, perr := hook.ParseClaude(raw)
	var why string
	switch {
	case rerr != nil || len(raw) > hook.MaxEvent:
		why = fmt.Sprintf("the hook event could not be read whole (%v, %d bytes)", rerr, len(raw))
	case perr != nil:
		why = perr.Error()
	case agent == "codex" && !filepath.IsAbs(ev.Cwd):
		why = fmt.Sprintf("the hook event's cwd %q is not an absolute path, so the patch's paths cannot be resolved as Codex resolves them", ev.Cwd)
	}
	root := opt.Root
	if agent == "codex" && why == "" {
		root = workspaceRoot(filepath.Clean(ev.Cwd))
		opt.Root = root
	}
	if root == "" {
		// Only to audit the refusals: nothing is judged without a root.
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "sightline: no project root and no working directory (%v)\n", err)
			stdout.Write(hook.DenyClaude("sightline refused this change: the project's root is unknown. Nothing was changed; tell the user."))
			return exitOK
		}
		root = workspaceRoot(wd)
	}
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	rs := newHookRouters(ctx, root, stderr)
	b := rs.here
	opt.Elsewhere = rs.elsewhere
	var a hook.Answer
	switch {
	case why != "":
		a = hook.Unreadable(ctx, b, agent, raw, why)
	case agent == "codex":
		a = hook.Codex(ctx, b, ev, opt)
	default:
		a = hook.Claude(ctx, b, ev, opt)
	}
	rs.close(ctx)
	stdout.Write(a.Stdout)
	io.WriteString(stderr, a.Stderr)
	return exitOK
}

// runDoorHook answers one hook event of an agent with a hook.Door. It exits
// 0 whatever happens: a change it cannot judge is denied in the agent's
// answer, and audited; what it could not do otherwise is said on standard
// error. The workspace is the repository of the project the agent says it
// runs in (envRoot, the variable the agent gives its hooks; else the
// event's own, set by the agent, never by the model; else flagRoot).
func runDoorHook(ctx context.Context, d *hook.Door, stdin io.Reader, stdout, stderr io.Writer, opt hook.Options, envRoot, flagRoot string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "sightline: the hook failed (%v)\n", r)
			stdout.Write(d.Deny(fmt.Sprintf("sightline refused this change because it failed judging it (%v). Nothing was changed; tell the user.", r)))
			code = exitOK
		}
	}()
	raw, rerr := io.ReadAll(io.LimitReader(stdin, hook.MaxEvent+1))
	var why string
	var ev hook.Event
	if rerr != nil || len(raw) > hook.MaxEvent {
		why = fmt.Sprintf("the hook event could not be read whole (%v, %d bytes)", rerr, len(raw))
	} else if ev, rerr = d.Parse(raw); rerr != nil {
		why = rerr.Error()
	}
	for _, r := range []string{envRoot, ev.Root, flagRoot} {
		if filepath.IsAbs(r) {
			opt.Root = workspaceRoot(filepath.Clean(r))
			break
		}
	}
	root := opt.Root
	if root == "" {
		// Only to audit the refusals: nothing is judged without a root.
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "sightline: no project root and no working directory (%v)\n", err)
			stdout.Write(d.Deny("sightline refused this change: the project's root is unknown. Nothing was changed; tell the user."))
			return exitOK
		}
		root = workspaceRoot(wd)
	}
	if dir, err := lookState(root); err == nil {
		opt.Epochs = hook.FileEpochs(filepath.Join(dir, "hook-epochs"))
	}
	if why == "" && d.Idle(ev, opt) {
		stdout.Write(ev.Reply)
		return exitOK
	}
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	rs := newHookRouters(ctx, root, stderr)
	b := rs.here
	opt.Elsewhere = rs.elsewhere
	var a hook.Answer
	if why != "" {
		a = d.Unreadable(ctx, b, ev, why)
	} else {
		a = d.Judge(ctx, b, ev, opt)
	}
	rs.close(ctx)
	stdout.Write(a.Stdout)
	io.WriteString(stderr, a.Stderr)
	return exitOK
}

// hookRouters are the routers of one hook event: the workspace's, and one
// per other repository a path of the event lies in (Elsewhere), made on
// first use.
type hookRouters struct {
	here   *route.Router
	others map[string]*route.Router
	ctx    context.Context
	stderr io.Writer
}

func newHookRouters(ctx context.Context, root string, stderr io.Writer) *hookRouters {
	return &hookRouters{here: newRouter(root, stderr, 0, nil, false, exits(ctx)), others: map[string]*route.Router{}, ctx: ctx, stderr: stderr}
}

// elsewhere is the router of the repository holding path; nil outside any.
func (h *hookRouters) elsewhere(path string) judge.Router {
	r, ok := gitRoot(filepath.Dir(path))
	if !ok {
		return nil
	}
	if o := h.others[r]; o != nil {
		return o
	}
	o := newRouter(r, h.stderr, 0, nil, false, exits(h.ctx))
	h.others[r] = o
	return o
}

// close saves every router's ledger and says what they noticed.
func (h *hookRouters) close(ctx context.Context) {
	for _, r := range append([]*route.Router{h.here}, mapValues(h.others)...) {
		if err := r.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(h.stderr, "sightline: saving the ledger: %v\n", err)
		}
		for _, n := range r.Notices() {
			fmt.Fprintf(h.stderr, "sightline: warning: %s\n", n)
		}
	}
}

// claudeRoot is the workspace Claude Code's hook guards: the repository
// holding the project Claude Code was started in (CLAUDE_PROJECT_DIR, which
// it gives every hook), else the root the hook was installed with. The
// event's cwd follows the agent's cd and never decides; "" when unknown.
func claudeRoot(projectDir, flagRoot string) string {
	for _, d := range []string{projectDir, flagRoot} {
		if filepath.IsAbs(d) {
			return workspaceRoot(filepath.Clean(d))
		}
	}
	return ""
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// gitRoot is the nearest folder from dir up holding .git.
func gitRoot(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// runHookInstall adds sightline's hooks to an agent's settings, or removes
// them, and says what changed.
func runHookInstall(verb string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || !slices.Contains([]string{"claude", "codex", "gemini", "copilot", "cursor", "cline", "opencode"}, args[0]) {
		fmt.Fprintln(stderr, hookUsage)
		return exitUsage
	}
	agent := args[0]
	fs := flag.NewFlagSet("hook "+verb, flag.ContinueOnError)
	user := fs.Bool("user", false, "the user's settings (~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json, …), for every project (the default)")
	project := fs.Bool("project", false, "the project's settings (.claude/settings.json, .codex/hooks.json, .gemini/settings.json, … in the workspace root)")
	dryRun := fs.Bool("dry-run", false, "print the new settings; change nothing")
	if _, ok := parseFlags(fs, args[1:], stderr); !ok || *user && *project {
		fmt.Fprintln(stderr, hookUsage)
		return exitUsage
	}
	var command []string
	local := false // the hooks go where only this machine looks
	if verb == "install" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "sightline: where is this program? %v\n", err)
			return exitUsage
		}
		command = []string{exe, "hook", agent}
		if *project {
			// A project's settings are shared: the command by name works for
			// every teammate with sightline on their PATH; a path of this
			// machine's does not, and goes where only this machine looks.
			switch {
			case onPath(exe):
				command[0] = "sightline"
			case agent == "claude":
				local = true
				fmt.Fprintf(stdout, "sightline on PATH is not %s: the hooks run it by its path, which is this machine's, so they go in settings.local.json (not shared), not settings.json.\n", exe)
			default:
				fmt.Fprintf(stdout, "sightline on PATH is not %s: the hooks run it by its path, which is this machine's; put sightline on PATH and install again before sharing them.\n", exe)
			}
		}
	}
	files, err := agentHookFiles(agent, *project, command)
	if err != nil {
		fmt.Fprintf(stderr, "sightline: %v\n", err)
		return exitUsage
	}
	if agent == "claude" && *project {
		// Claude Code's settings.local.json, beside settings.json and kept
		// out of git: where a machine's own path goes, and what uninstall
		// cleans too.
		lf := files[0]
		lf.path = filepath.Join(filepath.Dir(lf.path), "settings.local.json")
		switch {
		case local:
			files = []hookFile{lf}
		case verb == "uninstall":
			if _, err := os.Stat(lf.path); err == nil {
				files = append(files, lf)
			}
		}
	}
	for _, f := range files {
		if code := installHookFile(verb, agent, f, *dryRun, stdout, stderr); code != exitOK {
			return code
		}
	}
	if agent == "codex" && verb == "install" {
		// Codex keeps a trust record per hook, which only the user gives: an
		// installer that wrote it would approve itself.
		fmt.Fprintln(stdout, "Codex runs new hooks only once you trust them: start codex and review them with /hooks.")
	}
	if agent == "gemini" && verb == "install" && *project {
		fmt.Fprintln(stdout, "Gemini CLI runs a project's hooks only in a folder you trust.")
	}
	return exitOK
}

// claudeHookGroups are the hook door's Claude Code hooks running the
// program exe, as the "hooks" object of Claude Code's settings holds them:
// what sightline acp gives an agent built on Claude Code with its sessions.
func claudeHookGroups(exe string) map[string][]any {
	return hook.Groups(shellQuote(exe)+" hook claude", hook.ClaudeHooks)
}

// onPath reports whether `sightline` on PATH is the program exe.
func onPath(exe string) bool {
	p, err := exec.LookPath("sightline")
	if err != nil {
		return false
	}
	a, err := os.Stat(p)
	if err != nil {
		return false
	}
	b, err := os.Stat(exe)
	return err == nil && os.SameFile(a, b)
}

// hookFile is one file an agent's hooks live in, and how sightline's go
// there: merged into settings (merge: the new settings, what changed),
// or a file of sightline's own (own: its whole text).
type hookFile struct {
	path   string
	merge  func(settings []byte) ([]byte, []string, error)
	remove func(settings []byte) ([]byte, []string, error)
	own    string
	exec   bool
}

// agentHookFiles are the files an agent reads its hooks from, the user's or
// the project's (in the workspace root), with what sightline puts there to
// run command (nil: to remove them).
func agentHookFiles(agent string, project bool, command []string) ([]hookFile, error) {
	base, err := configBase(agent, project)
	if err != nil {
		return nil, err
	}
	cmd := ""
	if command != nil {
		cmd = shellQuote(command[0]) + " " + strings.Join(command[1:], " ")
	}
	groups := func(hooks []struct{ Event, Matcher, Why string }, timeout int) func([]byte) ([]byte, []string, error) {
		return func(b []byte) ([]byte, []string, error) { return hook.InstallTimeout(b, agent, cmd, hooks, timeout) }
	}
	removeGroups := func(b []byte) ([]byte, []string, error) { return hook.Uninstall(b, agent) }
	switch agent {
	case "claude":
		return []hookFile{{path: filepath.Join(base, "settings.json"), merge: groups(hook.ClaudeHooks, 30), remove: removeGroups}}, nil
	case "codex":
		return []hookFile{{path: filepath.Join(base, "hooks.json"), merge: groups(hook.CodexHooks, 30), remove: removeGroups}}, nil
	case "gemini":
		// Gemini CLI's timeouts are in milliseconds.
		return []hookFile{{path: filepath.Join(base, "settings.json"), merge: groups(hook.GeminiHooks, 30000), remove: removeGroups}}, nil
	case "cursor":
		return []hookFile{{path: filepath.Join(base, "hooks.json"),
			merge:  func(b []byte) ([]byte, []string, error) { return hook.InstallFlat(b, agent, cmd, hook.CursorHooks) },
			remove: func(b []byte) ([]byte, []string, error) { return hook.UninstallFlat(b, agent) }}}, nil
	case "copilot":
		return []hookFile{{path: filepath.Join(base, "sightline.json"), own: copilotHooks(command)}}, nil
	case "cline":
		var fs []hookFile
		for _, ev := range []string{"PreToolUse", "PostToolUse", "PreCompact"} {
			script := ""
			if command != nil {
				script = "#!/bin/sh\n# " + hook.OwnMark(agent) + ": written by `sightline hook install cline`.\nexec " + cmd + "\n"
			}
			fs = append(fs, hookFile{path: filepath.Join(base, ev), own: script, exec: true})
		}
		return fs, nil
	case "opencode":
		plugin := ""
		if command != nil {
			plugin = hook.OpencodePlugin(command)
		}
		return []hookFile{{path: filepath.Join(base, "sightline.js"), own: plugin}}, nil
	}
	return nil, fmt.Errorf("no hooks for %s", agent)
}

// configBase is the folder an agent reads its hooks from: the project's
// (in the workspace root) or the user's.
func configBase(agent string, project bool) (string, error) {
	projectDir := map[string]string{"claude": ".claude", "codex": ".codex", "gemini": ".gemini", "cursor": ".cursor",
		"copilot": filepath.Join(".github", "hooks"), "cline": filepath.Join(".clinerules", "hooks"), "opencode": filepath.Join(".opencode", "plugins")}[agent]
	if project {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		return filepath.Join(workspaceRoot(wd), projectDir), nil
	}
	switch {
	case agent == "codex" && os.Getenv("CODEX_HOME") != "":
		return os.Getenv("CODEX_HOME"), nil
	case agent == "copilot" && os.Getenv("COPILOT_HOME") != "":
		return filepath.Join(os.Getenv("COPILOT_HOME"), "hooks"), nil
	case agent == "opencode" && filepath.IsAbs(os.Getenv("XDG_CONFIG_HOME")):
		return filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "opencode", "plugins"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder for the user's settings (%w); use --project", err)
	}
	userDir := map[string]string{"claude": ".claude", "codex": ".codex", "gemini": ".gemini", "cursor": ".cursor",
		"copilot": filepath.Join(".copilot", "hooks"), "cline": filepath.Join("Documents", "Cline", "Rules", "Hooks"),
		"opencode": filepath.Join(".config", "opencode", "plugins")}[agent]
	return filepath.Join(home, userDir), nil
}

// copilotHooks is sightline's hooks file for Copilot CLI (its version 1
// format: a command for bash and one for PowerShell per event).
func copilotHooks(command []string) string {
	if command == nil {
		return ""
	}
	bash := shellQuote(command[0]) + " " + strings.Join(command[1:], " ")
	ps := "& '" + strings.ReplaceAll(command[0], "'", "''") + "' " + strings.Join(command[1:], " ")
	// The variable only marks the file as sightline's (JSON has no
	// comments): uninstall removes it, install replaces it.
	entry := []map[string]any{{"type": "command", "bash": bash, "powershell": ps, "timeoutSec": 30,
		"env": map[string]string{"SIGHTLINE_HOOK": hook.OwnMark("copilot")}}}
	b, _ := json.MarshalIndent(map[string]any{"version": 1, "hooks": map[string]any{
		"preToolUse": entry, "postToolUse": entry, "preCompact": entry}}, "", "  ")
	return string(b) + "\n"
}

// installHookFile installs or uninstalls sightline's hooks in one file and
// says what changed.
func installHookFile(verb, agent string, f hookFile, dryRun bool, stdout, stderr io.Writer) int {
	file, err := hook.ReadSettings(f.path)
	if err != nil {
		fmt.Fprintf(stderr, "sightline: %v\n", err)
		return exitUsage
	}
	path := f.path
	if file.Target != path {
		path = file.Target + " (linked from " + path + ")"
	}
	var out []byte
	var changed []string
	gone := false
	switch {
	case f.merge != nil && verb == "install":
		out, changed, err = f.merge(file.Data)
	case f.merge != nil:
		out, changed, err = f.remove(file.Data)
	case file.Data != nil && !hook.OwnedBy(file.Data, agent):
		if verb == "install" {
			err = fmt.Errorf("it is not sightline's: add `sightline hook %s` to it yourself, or move it away and run again; nothing was changed", agent)
		}
	case verb == "install" && string(file.Data) != f.own:
		out, changed = []byte(f.own), []string{"wrote sightline's hook for " + agent}
	case verb == "uninstall" && file.Data != nil:
		gone, changed = true, []string{"removed sightline's hook for " + agent}
	}
	if err != nil {
		fmt.Fprintf(stderr, "sightline: %s: %v\n", path, err)
		return exitUsage
	}
	if len(changed) == 0 {
		what := "already installed"
		if verb == "uninstall" {
			what = "not installed"
		}
		fmt.Fprintf(stdout, "%s: sightline's %s hooks are %s; nothing changed.\n", path, agent, what)
		return exitOK
	}
	switch {
	case dryRun:
		fmt.Fprintf(stdout, "%s would change (dry run, nothing written):\n", path)
	case gone:
		if err := os.Remove(file.Target); err != nil {
			fmt.Fprintf(stderr, "sightline: removing %s: %v\n", path, err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s removed:\n", path)
	default:
		if f.exec {
			file.Executable()
		}
		if err := file.Write(out); err != nil {
			fmt.Fprintf(stderr, "sightline: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s changed:\n", path)
	}
	for _, c := range changed {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	if dryRun {
		stdout.Write(out)
	}
	return exitOK
}

// shellQuote quotes a path for the shell Claude Code runs hooks with.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
