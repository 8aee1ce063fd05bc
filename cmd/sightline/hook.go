package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/hook"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/store"
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
	b := newRouter(root, stderr, 0, nil, false, exits(ctx))
	others := map[string]*route.Router{}
	opt.Elsewhere = func(path string) judge.Router {
		r, ok := gitRoot(filepath.Dir(path))
		if !ok {
			return nil
		}
		if o := others[r]; o != nil {
			return o
		}
		o := newRouter(r, stderr, 0, nil, false, exits(ctx))
		others[r] = o
		return o
	}
	var a hook.Answer
	switch {
	case why != "":
		a = hook.Unreadable(ctx, b, agent, raw, why)
	case agent == "codex":
		a = hook.Codex(ctx, b, ev, opt)
	default:
		a = hook.Claude(ctx, b, ev, opt)
	}
	for _, r := range append([]*route.Router{b}, mapValues(others)...) {
		if err := r.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(stderr, "sightline: saving the ledger: %v\n", err)
		}
		for _, n := range r.Notices() {
			fmt.Fprintf(stderr, "sightline: warning: %s\n", n)
		}
	}
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
	if dir, err := store.DirOf(root); err == nil {
		opt.Epochs = hook.FileEpochs(filepath.Join(dir, "hook-epochs"))
	}
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	b := newRouter(root, stderr, 0, nil, false, exits(ctx))
	others := map[string]*route.Router{}
	opt.Elsewhere = func(path string) judge.Router {
		r, ok := gitRoot(filepath.Dir(path))
		if !ok {
			return nil
		}
		if o := others[r]; o != nil {
			return o
		}
		o := newRouter(r, stderr, 0, nil, false, exits(ctx))
		others[r] = o
		return o
	}
	var a hook.Answer
	if why != "" {
		a = d.Unreadable(ctx, b, ev, why)
	} else {
		a = d.Judge(ctx, b, ev, opt)
	}
	for _, r := range append([]*route.Router{b}, mapValues(others)...) {
		if err := r.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(stderr, "sightline: saving the ledger: %v\n", err)
		}
		for _, n := range r.Notices() {
			fmt.Fprintf(stderr, "sightline: warning: %s\n", n)
		}
	}
	stdout.Write(a.Stdout)
	io.WriteString(stderr, a.Stderr)
	return exitOK
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
	if len(args) == 0 || args[0] != "claude" && args[0] != "codex" {
		fmt.Fprintln(stderr, hookUsage)
		return exitUsage
	}
	agent := args[0]
	hooks := hook.ClaudeHooks
	if agent == "codex" {
		hooks = hook.CodexHooks
	}
	fs := flag.NewFlagSet("hook "+verb, flag.ContinueOnError)
	user := fs.Bool("user", false, "the user's settings (~/.claude/settings.json, ~/.codex/hooks.json), for every project (the default)")
	project := fs.Bool("project", false, "the project's settings (.claude/settings.json, .codex/hooks.json in the workspace root)")
	dryRun := fs.Bool("dry-run", false, "print the new settings; change nothing")
	if _, ok := parseFlags(fs, args[1:], stderr); !ok || *user && *project {
		fmt.Fprintln(stderr, hookUsage)
		return exitUsage
	}
	path, err := agentSettings(agent, *project)
	if err != nil {
		fmt.Fprintf(stderr, "sightline: %v\n", err)
		return exitUsage
	}
	file, err := hook.ReadSettings(path)
	if err != nil {
		fmt.Fprintf(stderr, "sightline: %v\n", err)
		return exitUsage
	}
	if file.Target != path {
		path = file.Target + " (linked from " + path + ")"
	}
	var out []byte
	var changed []string
	if verb == "install" {
		exe, xerr := os.Executable()
		if xerr != nil {
			fmt.Fprintf(stderr, "sightline: where is this program? %v\n", xerr)
			return exitUsage
		}
		out, changed, err = hook.Install(file.Data, agent, shellQuote(exe)+" hook "+agent, hooks)
	} else {
		out, changed, err = hook.Uninstall(file.Data, agent)
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
	if *dryRun {
		fmt.Fprintf(stdout, "%s would change (dry run, nothing written):\n", path)
	} else {
		if err := file.Write(out); err != nil {
			fmt.Fprintf(stderr, "sightline: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "%s changed:\n", path)
	}
	for _, c := range changed {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	if *dryRun {
		stdout.Write(out)
	}
	if agent == "codex" && verb == "install" {
		// Codex keeps a trust record per hook, which only the user gives: an
		// installer that wrote it would approve itself.
		fmt.Fprintln(stdout, "Codex runs new hooks only once you trust them: start codex and review them with /hooks.")
	}
	return exitOK
}

// agentSettings is the file an agent reads its hooks from: Claude Code's
// settings.json, Codex's hooks.json; the user's, or the project's (in the
// workspace root).
func agentSettings(agent string, project bool) (string, error) {
	dir, file := ".claude", "settings.json"
	if agent == "codex" {
		dir, file = ".codex", "hooks.json"
	}
	if project {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		return filepath.Join(workspaceRoot(wd), dir, file), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder for the user's settings (%w); use --project", err)
	}
	if agent == "codex" && os.Getenv("CODEX_HOME") != "" {
		return filepath.Join(os.Getenv("CODEX_HOME"), file), nil
	}
	return filepath.Join(home, dir, file), nil
}

// shellQuote quotes a path for the shell Claude Code runs hooks with.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
