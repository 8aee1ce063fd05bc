package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// workspaceRoot is the nearest folder above wd holding .git, else wd
// (PROTOCOL section 8).
func workspaceRoot(wd string) string {
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}

// cliEnv is the engines plus the directory the command runs in: a PATH
// argument is relative to it, as for any command line tool, while answers
// name paths relative to the workspace root.
type cliEnv struct {
	*handlers.Env
	wd string
}

// resolve turns a PATH argument (relative to the working directory, or
// absolute) into a document key; outside the workspace it is denied.
func (e *cliEnv) resolve(arg string) (workspace.Key, error) {
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.wd, p)
	}
	return e.WS.Resolve(p)
}

// openEnv assembles the same engines the language server uses, sharing its
// ledger database.
// ap answers approval requests for sensitive paths; nil refuses them.
func openEnv(ctx context.Context, stderr io.Writer, ap handlers.Approver) (*cliEnv, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	root := workspaceRoot(wd)
	cfg, err := config.Load(root)
	if err != nil {
		fmt.Fprintf(stderr, "sightline: %v (using defaults)\n", err)
		cfg = config.Default()
	}
	env := handlers.Setup(ctx, handlers.Options{Roots: []string{root}, Config: cfg, StateDir: os.Getenv("SIGHTLINE_STATE_DIR"), Approver: ap})
	return &cliEnv{Env: env, wd: wd}, nil
}

// writeJSON prints a result as the language server sends it (result.Marshal:
// the same fields), indented for people.
func writeJSON(w io.Writer, v any) error {
	b, err := result.MarshalIndent(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
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
}

// answer prints a handler's answer and returns the exit code (PROTOCOL
// section 8): a fault or invalid input is 2; a refusal prints its kind and
// message (and detail, such as fresh refs) and is 1; success prints the JSON
// or runs human.
func (o output) answer(res any, out handlers.Outcome, err error, detail, human func(io.Writer)) int {
	switch {
	case err != nil:
		fmt.Fprintf(o.stderr, "sightline %s: %v\n", o.name, result.Message(err))
		return exitUsage
	case o.json:
		if err := writeJSON(o.stdout, res); err != nil {
			fmt.Fprintf(o.stderr, "sightline %s: %v\n", o.name, err)
			return exitUsage
		}
	case !out.OK:
		fmt.Fprintf(o.stderr, "%s: %s\n", out.Error, out.Message)
		if detail != nil {
			detail(o.stderr)
		}
	default:
		human(o.stdout)
	}
	if !out.OK {
		return exitRefused
	}
	return exitOK
}

// refuse answers with a refusal that happened before the handler ran (a path
// outside the workspace); empty is the command's result type with o set.
func (o output) refuse(err error, empty func(handlers.Outcome) any) int {
	ref := handlers.Refusal(err)
	return o.answer(empty(ref), ref, nil, nil, nil)
}
