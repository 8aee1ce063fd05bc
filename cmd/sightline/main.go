// Command sightline is a language server for in-editor coding agents and the
// CLI that shares its state: see README.md and PROTOCOL.md section 8.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// Exit codes (PROTOCOL section 8).
const (
	exitOK      = 0
	exitRefused = 1
	exitUsage   = 2
)

func main() {
	if len(os.Args) > 1 && oneCall(os.Args[1]) && os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// A CLI command lives for one call: collecting garbage it is about
		// to drop at exit is wasted time. It collects only when its memory
		// nears what its input warrants.
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(cliMemoryLimit(os.Args[2:], os.Stdin))
	}
	os.Exit(runIn(exiting(context.Background()), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitingKey marks the context of a command whose process exits when it
// returns (main's, not a test's calling run).
type exitingKey struct{}

func exiting(ctx context.Context) context.Context {
	return context.WithValue(ctx, exitingKey{}, true)
}

// exits reports whether the process exits when ctx's command returns: then
// what the command leaves open (its state database) is the exit's to drop.
func exits(ctx context.Context) bool {
	v, _ := ctx.Value(exitingKey{}).(bool)
	return v
}

// cliMemoryBase is the memory a CLI command may use before it collects,
// beyond the size of its input. With the binary's pages, a command's
// resident memory stays within 64 MB plus the size of the files it touches,
// unless what it holds at once is more (a whole-file read of a large file:
// the text and its annotated copy).
const cliMemoryBase = 40 << 20

// cliMemoryLimit sizes a one-call command's memory limit from its input:
// cliMemoryBase plus the size of the regular files its arguments name
// (PATH, PATH:START-END, --edits FILE) and of standard input when it is a
// file. Files named only inside the input (a patch's) are not counted: such
// a command collects more often when they are large, but stays bounded.
func cliMemoryLimit(args []string, stdin *os.File) int64 {
	limit := int64(cliMemoryBase)
	for _, a := range args {
		if a == "" || a[0] == '-' {
			continue
		}
		if st, err := os.Stat(a); err == nil && st.Mode().IsRegular() {
			limit += st.Size()
		} else if i := strings.LastIndexByte(a, ':'); i > 0 {
			if st, err := os.Stat(a[:i]); err == nil && st.Mode().IsRegular() {
				limit += st.Size()
			}
		}
	}
	if st, err := stdin.Stat(); err == nil && st.Mode().IsRegular() {
		limit += st.Size()
	}
	return limit
}

// oneCall reports whether a command makes one call and exits: not the
// servers, and not apply, which applies blocks for as long as its input
// streams.
func oneCall(cmd string) bool {
	switch cmd {
	case "serve", "mcp", "apply", "acp", "daemon":
		return false
	}
	return true
}

// command is a line of the CLI's table, from which its help, its manual
// page and its shell completions are made (the flags from the command's own
// flag set: flagsOf).
type command struct {
	name, usage, summary string
	run                  func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// example is a command line a user can run, shown by --help.
	example string
	// args is what the command's positional arguments are.
	args argKind
	// subs are the words that may follow the name (sightline hook install).
	subs []sub
}

// argKind is what a command's positional arguments are, for completion.
type argKind int

const (
	argNone argKind = iota
	argPath         // files of the workspace
)

// sub is a word that may follow a command's name, and the words that may
// follow it in turn (hook install claude|codex).
type sub struct {
	name  string
	words []string
}

// subsOf are subs of the given names, each followed by words.
func subsOf(words []string, names ...string) []sub {
	out := make([]sub, len(names))
	for i, n := range names {
		out[i] = sub{n, words}
	}
	return out
}

var agents = []string{"claude", "codex", "gemini", "copilot", "cursor", "cline", "opencode"}

func commands() []command {
	own := ownCommands()
	return append(own, toolCommands(own)...)
}

// ownCommands are the commands written here; the rest are derived from the
// operation table (toolCommands).
func ownCommands() []command {
	return []command{
		{"serve", "serve [--log-file F] [--log-level L] [--no-bridge]", "language server on stdio (what editors launch); the CLI and sightline mcp\n      of the workspace hand their calls to it over a local socket", runServe, "sightline serve", argNone, nil},
		{"mcp", "mcp [--session S | --session-file F] [--root DIR]", "MCP server on stdio (what terminal agents launch): the sightline_* tools", runMCP, "sightline mcp --session claude-1", argNone, nil},
		{"acp", "acp [--root DIR] [--no-mcp] [--mcp-name NAME] [--no-hooks] -- AGENT [ARGS...]", "run an ACP agent (what Zed, JetBrains, Neovim and Emacs agent panels launch) behind\n      sightline: what it reads through the editor is recorded, its writes and edits guarded", runACP, "sightline acp -- npx @agentclientprotocol/claude-agent-acp", argNone, nil},
		{"read", "read PATH[:START-END] | PATH#SYMBOL [--raw] [--budget N] [--json] [--session S] [--agent A]", "read lines (or a declaration: PATH#Class.method), hashline-annotated, and record them in the ledger", runRead, "sightline read main.go:20-60", argPath, nil},
		{"edit", "edit PATH --edits FILE|- [--file-hash H] [--dry-run] [--json] [--session S]", "apply hashline edits, guarded by the ledger, atomically", runEdit, "sightline edit main.go --edits edits.json --dry-run", argPath, nil},
		{"apply", "apply [--dry-run] [--stage] [--json] < model-output.txt", "apply edit blocks from model output: each checked as it completes, all\n      written together at the end, or none; a block's path is relative to the workspace root, as models write it", runApply, "sightline apply --dry-run < model-output.txt", argNone, nil},
		{"open", "open PATH[:LINE] [--json]", "show a document in the running editor (through its language server)", runOpen, "sightline open main.go:42", argPath, nil},
		{"patch", "patch [--dry-run] [--json] [--session S] < PATCH", "apply a unified diff or a V4A patch: every file exactly, or none", runPatch, "git diff | sightline patch --dry-run", argNone, nil},
		{"write", "write PATH --mode create|edit|append|overwrite [--old-text T] [--expected-version H] [--dry-run] [--json] < content", "str_replace-style writes, guarded like edits", runWrite, "sightline write notes.md --mode append < more.md", argPath, nil},
		{"ledger", "ledger [PATH] [--json] [--session S]", "what the session has read, written, and what went stale", runLedger, "sightline ledger", argPath, nil},
		{"summary", "summary PATH [--extract regex|treesitter] [--json]", "the declarations of a file and its head (signature extraction)", runSummary, "sightline summary server/server.go", argPath, nil},
		{"files", "files [GLOB...] [--hash] [--json] [--session S]", "the workspace's files as git tracks them: size, tags, sensitivity, ledger state", runFiles, "sightline files '*.go'", argPath, nil},
		{"history", "history PATH [--json]", "the versions sightline kept of a file (every write keeps the text before and after)", runHistory, "sightline history main.go", argPath, nil},
		{"diff", "diff PATH [--from V] [--to V] [--json]", "the diff between two versions (default: the one before the latest, and the file now)", runDiff, "sightline diff main.go", argPath, nil},
		{"rollback", "rollback PATH VERSION [--dry-run] [--json] [--session S]", "make a file a kept version again, through the edit guard", runRollback, "sightline rollback main.go 3 --dry-run", argPath, nil},
		{"audit", "audit [--limit N] [--session S] [--path P] [--json]", "every agent-facing call: time, session, method, path, outcome, file hashes", runAudit, "sightline audit --limit 20", argNone, nil},
		{"approvals", "approvals [--session S] [--revoke PATH] [--json]", "the sensitive paths sessions were allowed to use; revoke them", runApprovals, "sightline approvals --revoke .env", argNone, nil},
		{"session", "session reset [--session S] | session list [--json | --names]", "forget what a session read, wrote and was allowed; list sessions", runSession, "sightline session list", argNone, subsOf(nil, "list", "reset")},
		{"hook", "hook AGENT [--keep-reads] [--root DIR] < EVENT | hook install|uninstall AGENT [--user|--project] [--dry-run] (AGENT: claude, codex, gemini, copilot, cursor, cline, opencode)", "guard an agent's own tools (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, Cline, opencode) through its hooks; install the hooks", runHook, "sightline hook install claude --project", argNone, append(subsOf(nil, agents...), subsOf(agents, "install", "uninstall")...)},
		{"stats", "stats [--json] [--limit N]", "edit outcomes, latency, guard trip and auto-expand rates", runStats, "sightline stats", argNone, nil},
		{"completion", "completion bash|zsh|fish", "print a shell completion script", runCompletion, "sightline completion bash > ~/.local/share/bash-completion/completions/sightline", argNone, subsOf(nil, "bash", "zsh", "fish")},
		{"man", "man", "print the manual page, sightline(1), in roff (sightline man | man -l -)", runMan, "sightline man | man -l -", argNone, nil},
		{"daemon", "daemon [--root DIR] [--idle D] | daemon status|list [--json] | daemon stop [--all]", "the workspace's headless server, which the CLI starts itself (SIGHTLINE_DAEMON=0: not)\n      and hands its calls to (it exits after --idle without a call; it logs to daemon.log in the\n      state folder); status shows this workspace's, list the user's; stop asks it (--all: every one) to exit", runDaemon, "sightline daemon status", argNone, subsOf(nil, "status", "list", "stop")},
		{"state", "state list [--json] | state prune [--dry-run] [--json]", "the state folders of the user's workspaces (root, size, last use, whether the root\n      still exists); prune removes those whose root is gone and no server uses", runState, "sightline state prune --dry-run", argNone, subsOf(nil, "list", "prune")},
		{"bridge", "bridge [--json]", "the workspace's socket folder and the language servers listening there", runBridge, "sightline bridge", argNone, nil},
		{"version", "version (or --version)", "print the version", runVersion, "sightline version", argNone, nil},
	}
}

// runIn runs the command args names in ctx.
func runIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(context.Background(), nil, stdin, stdout, stderr)
	}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch {
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" && len(args) == 1:
		usage(stdout)
		return exitOK
	case args[0] == "help" || wantsHelp(args[1:]):
		// sightline help CMD, sightline CMD [SUB] --help.
		name := args[0]
		if name == "help" {
			name = args[1]
		}
		c, ok := lookup(name)
		if !ok {
			unknownCommand(stderr, name)
			return exitUsage
		}
		commandHelp(stdout, c)
		return exitOK
	}
	ctx = withMachine(ctx, args[1:])
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	unknownCommand(stderr, args[0])
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "sightline: a language server that knows what a coding agent has seen")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  sightline %s\n      %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(w, "\nA PATH is relative to the current directory (or absolute) and must be inside the workspace:")
	fmt.Fprintln(w, "the nearest folder above the current directory holding .git or .sightline.json, else the")
	fmt.Fprintln(w, "current directory (and the answers say so).")
	fmt.Fprintln(w, "Answers name files relative to the workspace root.")
	fmt.Fprintln(w, "\nsightline help COMMAND (or sightline COMMAND --help) shows a command's flags and an example.")
}

// parseFlags parses interspersed flags and positional arguments, which the
// flag package alone does not (sightline read FILE --raw).
// A flag it does not know is said with where to find the ones it knows.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, bool) {
	if captured(fs, stderr) {
		return nil, false
	}
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Run `sightline %s --help` for its flags.\n", fs.Name())
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, false
			}
			return nil, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
