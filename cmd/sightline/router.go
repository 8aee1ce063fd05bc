package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/daemon"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/workspace"
)

// workspaceRoot is the nearest folder above wd holding .git or
// .sightline.json, else wd (PROTOCOL section 8; workspace.FindRoot).
func workspaceRoot(wd string) string {
	root, _ := workspace.FindRoot(wd)
	return root
}

// cliRouter is a command's router (its call runs on a running language
// server of the workspace, else on the engines over the disk) plus the
// directory the command runs in: a PATH argument is relative to it, as
// for any command line tool, while answers name paths relative to the
// workspace root.
type cliRouter struct {
	*route.Router
	wd     string
	stderr io.Writer
}

// key turns a PATH argument (relative to the working directory, or
// absolute) into a document key, judging nothing: the call's admission step
// refuses, and audits, a path outside the workspace.
func (e *cliRouter) key(arg string) workspace.Key {
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.wd, p)
		if workspace.NamesFolder(arg) {
			p += string(filepath.Separator) // a folder, for admission to refuse
		}
	}
	return e.Key(p)
}

// resolve turns a PATH argument (relative to the working directory, or
// absolute) into a document key; outside the workspace it is denied.
func (e *cliRouter) resolve(arg string) (workspace.Key, error) {
	if workspace.NamesFolder(arg) {
		return e.Resolve(arg) // refused as naming a folder, which Join would hide
	}
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.wd, p)
	}
	return e.Resolve(p)
}

// Close tells what the caller should know about where the call ran (a
// server that went away) and flushes a local ledger.
func (e *cliRouter) Close(ctx context.Context) error {
	for _, n := range e.Notices() {
		fmt.Fprintf(e.stderr, "sightline: warning: %s\n", n)
	}
	if err := e.Router.Close(ctx); err != nil {
		fmt.Fprintf(e.stderr, "sightline: saving the ledger: %v\n", err)
		return err
	}
	return nil
}

// openRouter routes the command's call: to the language server of the
// workspace when one runs (so an edit of a document open in the editor
// reaches its buffer), else to the same engines the server uses, over the
// disk, sharing its ledger database.
// ap answers approval requests for sensitive paths on disk; nil refuses them
// (through a running server, the editor asks).
func openRouter(ctx context.Context, stderr io.Writer, ap engine.Approver) (*cliRouter, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	// A person at a terminal hears of the daemon's first start; a
	// program reading --json output does not.
	tell := !machineRead(ctx) && isTerminal(stderr)
	return &cliRouter{Router: newRouter(workspaceRoot(wd), stderr, 0, ap, tell, exits(ctx)), wd: wd, stderr: stderr}, nil
}

// newRouter routes calls for the workspace at root; SIGHTLINE_STATE_DIR
// names another state folder, SIGHTLINE_NO_BRIDGE=1 keeps to the disk. A
// one-call command (flushEvery 0) that ran on disk with no server running
// starts the workspace's daemon as it ends, unless daemon.Off; tell: the
// first start in the workspace is told on stderr (firstStartNotice);
// exiting: the process exits when the command returns (exits).
func newRouter(root string, stderr io.Writer, flushEvery time.Duration, ap engine.Approver, tell, exiting bool) *route.Router {
	stateDir := os.Getenv("SIGHTLINE_STATE_DIR")
	var start func(sockDir string)
	if flushEvery == 0 && !daemon.Off(os.Getenv) {
		start = func(sockDir string) {
			exe, err := os.Executable()
			started := false
			if err == nil {
				// Its working directory is its socket folder, not the
				// workspace, which it would keep busy (umount).
				started, err = daemon.Start(sockDir, exe, []string{"daemon", "--root", root}, sockDir, daemonEnv(stateDir))
			}
			if err != nil {
				// The next call runs in its own process again: nothing is
				// lost but time.
				fmt.Fprintf(stderr, "sightline: %v\n", err)
			}
			if started && tell {
				firstStartNotice(stderr, sockDir, root)
			}
		}
	}
	// The engines over the disk are route's own (route.Options.OpenLocal
	// unset): the configuration's problems are in every answer (on stderr for a person),
	// and a policy that cannot be read refuses every path.
	return route.New(route.Options{
		Root:        root,
		FlushEvery:  flushEvery,
		StateDir:    stateDir,
		NoBridge:    os.Getenv("SIGHTLINE_NO_BRIDGE") == "1",
		Daemon:      &bridge.HelloParams{Build: daemon.Build(), Root: root, Config: config.UserFile(), Confinement: daemon.Confinement()},
		StartDaemon: start,
		Approver:    ap,
		Exits:       exiting,
	})
}

// daemonEnv is the environment of a daemon the command starts: its own,
// with SIGHTLINE_STATE_DIR absolute, since the daemon runs elsewhere.
func daemonEnv(stateDir string) []string {
	env := os.Environ()
	if stateDir == "" || filepath.IsAbs(stateDir) {
		return env
	}
	abs, err := filepath.Abs(stateDir)
	if err != nil {
		return env
	}
	return append(env, "SIGHTLINE_STATE_DIR="+abs) // the last one wins
}

// defaultSession is the session of a call that names none: SIGHTLINE_SESSION,
// else "default".
func defaultSession() string {
	if s := os.Getenv("SIGHTLINE_SESSION"); s != "" {
		return s
	}
	return "default"
}

// writeJSON prints a result as the language server sends it (result.Write:
// the same encoder, the same fields): compact for programs, indented with
// --pretty or when w is a terminal (a person is reading).
func writeJSON(w io.Writer, v any, pretty bool) error {
	return result.Write(w, v, pretty || isTerminal(w))
}

// prettyFlag registers --pretty on a command that prints JSON.
func prettyFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("pretty", false, "indent the JSON (the default when standard output is a terminal)")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func runVersion(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stdout, "sightline", versionString())
	return exitOK
}

// output prints a command's answer the same way for every command.
type output struct {
	name           string
	stdout, stderr io.Writer
	json           bool
	pretty         bool
}

// answer prints a handler's answer and returns the exit code (PROTOCOL
// section 8): a fault or invalid input is 2; a refusal prints its kind and
// message (and detail, such as fresh refs) and is 1; success prints the JSON
// or runs human.
func (o output) answer(res any, out engine.Outcome, err error, detail, human func(io.Writer)) int {
	switch {
	case err != nil:
		fmt.Fprintf(o.stderr, "sightline %s: %v\n", o.name, result.Message(err))
		return exitUsage
	case o.json:
		if err := writeJSON(o.stdout, res, o.pretty); err != nil {
			fmt.Fprintf(o.stderr, "sightline %s: %v\n", o.name, err)
			return exitUsage
		}
	case !out.OK:
		io.WriteString(o.stderr, ops.RefusalLine(out))
		if detail != nil {
			detail(o.stderr)
		}
	default:
		human(o.stdout)
	}
	if !o.json {
		// Warnings go to stderr, so stdout stays the answer (file text for
		// a read), whether the call succeeded or was refused.
		for _, w := range out.Warnings {
			io.WriteString(o.stderr, ops.WarningLine(w))
		}
	}
	if !out.OK {
		return exitRefused
	}
	return exitOK
}

// call runs an operation of the table and prints its answer: its text
// (ops), the answer on standard output and a refusal's on standard error,
// or the result as JSON.
func (o output) call(ctx context.Context, rt *cliRouter, op ops.Op, p any) int {
	res, err := rt.Call(ctx, op, p)
	var out engine.Outcome
	if err == nil {
		out = op.Outcome(res)
	}
	body := func(w io.Writer) { io.WriteString(w, op.Body(res)) }
	return o.answer(res, out, err, body, body)
}
