package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/route"
)

func runAudit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	limit := fs.Int("limit", 50, "the latest N calls (0: all)")
	session := fs.String("session", "", "only this session's calls")
	path := fs.String("path", "", "only calls on this PATH")
	asJSON := fs.Bool("json", false, "print one JSON object per line")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) > 0 {
		fmt.Fprintln(stderr, "usage: sightline audit [--limit N] [--session S] [--path P] [--json]")
		return exitUsage
	}
	rt, ok := databaseCommand(ctx, "audit", stderr)
	if !ok {
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	p := engine.AuditParams{Limit: *limit, Session: *session}
	if *path != "" {
		key, err := rt.resolve(*path)
		if err != nil {
			fmt.Fprintf(stderr, "sightline audit: %v\n", result.Message(err))
			return exitUsage
		}
		p.Path = rt.Rel(key)
	}
	res, err := route.Do(ctx, rt.Router, ops.Audit, p)
	if err != nil {
		fmt.Fprintf(stderr, "sightline audit: %v\n", err)
		return exitUsage
	}
	if !*asJSON {
		io.WriteString(stdout, ops.Audit.Body(res))
		return exitOK
	}
	for _, a := range res.Entries {
		b, err := result.Marshal(a)
		if err != nil {
			fmt.Fprintf(stderr, "sightline audit: %v\n", err)
			return exitUsage
		}
		stdout.Write(append(b, '\n'))
	}
	return exitOK
}

func runApprovals(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("approvals", flag.ContinueOnError)
	session := fs.String("session", "", "only this session's approvals")
	revoke := fs.String("revoke", "", "forget the approvals of PATH")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) > 0 {
		fmt.Fprintln(stderr, "usage: sightline approvals [--session S] [--revoke PATH] [--json]")
		return exitUsage
	}
	rt, ok := databaseCommand(ctx, "approvals", stderr)
	if !ok {
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	p := engine.ApprovalsParams{Session: *session}
	if *revoke != "" {
		key, err := rt.resolve(*revoke)
		if err != nil {
			fmt.Fprintf(stderr, "sightline approvals: %v\n", result.Message(err))
			return exitUsage
		}
		p.Revoke = filepath.ToSlash(rt.Rel(key))
	}
	out := output{"approvals", stdout, stderr, *asJSON, false}
	return out.call(ctx, rt, ops.Approvals, p)
}

func runSession(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "reset" && args[0] != "list") {
		fmt.Fprintln(stderr, "usage: sightline session reset [--session S] | sightline session list [--json | --names]")
		return exitUsage
	}
	fs := flag.NewFlagSet("session "+args[0], flag.ContinueOnError)
	session := fs.String("session", "default", "the session to reset")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	var names *bool
	if args[0] == "list" {
		names = fs.Bool("names", false, "only the sessions' names, one a line (for scripts and completion)")
	}
	pos, ok := parseFlags(fs, args[1:], stderr)
	if !ok || len(pos) > 0 || names != nil && *names && *asJSON {
		fmt.Fprintln(stderr, "usage: sightline session reset [--session S] | sightline session list [--json | --names]")
		return exitUsage
	}
	rt, ok := databaseCommand(ctx, "session", stderr)
	if !ok {
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"session", stdout, stderr, *asJSON, false}
	if args[0] == "reset" {
		return out.call(ctx, rt, ops.Reset, engine.ResetParams{Caller: engine.Caller{Session: *session}})
	}
	if names != nil && *names {
		res, err := route.Do(ctx, rt.Router, ops.Sessions, engine.SessionsParams{})
		if err != nil {
			fmt.Fprintf(stderr, "sightline session list: %v\n", result.Message(err))
			return exitUsage
		}
		for _, s := range res.Sessions {
			fmt.Fprintln(stdout, s.Session)
		}
		return exitOK
	}
	return out.call(ctx, rt, ops.Sessions, engine.SessionsParams{})
}

// databaseCommand opens the workspace for a command on its state (audit,
// approvals, sessions): a running server's, whose memory is ahead of the
// database (and whose editor a reset must reach), else the database's.
func databaseCommand(ctx context.Context, name string, stderr io.Writer) (*cliRouter, bool) {
	rt, err := openRouter(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline %s: %v\n", name, err)
		return nil, false
	}
	return rt, true
}
