package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/result"
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
	env, local, done, ok := databaseCommand(ctx, "audit", stderr)
	if !ok {
		return exitUsage
	}
	defer done()
	p := handlers.AuditParams{Limit: *limit, Session: *session}
	if *path != "" {
		key, err := env.resolve(*path)
		if err != nil {
			fmt.Fprintf(stderr, "sightline audit: %v\n", result.Message(err))
			return exitUsage
		}
		p.Path = local.WS.Rel(key)
	}
	res, err := local.Audit(ctx, p)
	if err != nil {
		fmt.Fprintf(stderr, "sightline audit: %v\n", err)
		return exitUsage
	}
	for _, a := range res.Entries {
		if *asJSON {
			b, err := result.Marshal(a)
			if err != nil {
				fmt.Fprintf(stderr, "sightline audit: %v\n", err)
				return exitUsage
			}
			stdout.Write(append(b, '\n'))
			continue
		}
		outcome := a.Outcome
		if a.Error != "" {
			outcome += " " + a.Error
		}
		who := a.Session
		if a.Agent != "" {
			who += "/" + a.Agent
		}
		fmt.Fprintf(stdout, "%s  %-10s %-22s %-26s %s  %s → %s  %.1fms\n", a.Time.Local().Format("2006-01-02 15:04:05.000"), who, a.Method, outcome, a.Path,
			short(a.Before), short(a.After), a.DurationMs)
	}
	return exitOK
}

// short abbreviates a file hash for people: sha256:1a2b3c4d.
func short(h string) string {
	if len(h) > 15 {
		return h[:15]
	}
	if h == "" {
		return "-"
	}
	return h
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
	env, local, done, ok := databaseCommand(ctx, "approvals", stderr)
	if !ok {
		return exitUsage
	}
	defer done()
	p := handlers.ApprovalsParams{Session: *session}
	if *revoke != "" {
		key, err := env.resolve(*revoke)
		if err != nil {
			fmt.Fprintf(stderr, "sightline approvals: %v\n", result.Message(err))
			return exitUsage
		}
		p.Revoke = filepath.ToSlash(local.WS.Rel(key))
	}
	res, err := local.Approvals(ctx, p)
	out := output{"approvals", stdout, stderr, *asJSON, false}
	return out.answer(res, res.Outcome, err, nil, func(w io.Writer) {
		if res.Message != "" {
			fmt.Fprintln(w, res.Message)
		}
		if len(res.Approvals) == 0 {
			fmt.Fprintln(w, "No approvals remembered.")
		}
		for _, a := range res.Approvals {
			fmt.Fprintf(w, "%s  %s  %s  %s\n", a.Session, a.Path, a.Granted.Local().Format(time.DateTime), a.Rule)
		}
	})
}

func runSession(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "reset" && args[0] != "list") {
		fmt.Fprintln(stderr, "usage: sightline session reset [--session S] | sightline session list [--json]")
		return exitUsage
	}
	fs := flag.NewFlagSet("session "+args[0], flag.ContinueOnError)
	session := fs.String("session", "default", "the session to reset")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, ok := parseFlags(fs, args[1:], stderr)
	if !ok || len(pos) > 0 {
		fmt.Fprintln(stderr, "usage: sightline session reset [--session S] | sightline session list [--json]")
		return exitUsage
	}
	_, local, done, ok := databaseCommand(ctx, "session", stderr)
	if !ok {
		return exitUsage
	}
	defer done()
	out := output{"session", stdout, stderr, *asJSON, false}
	if args[0] == "reset" {
		local.LoadSession(ctx, *session)
		res, _ := local.Reset(ctx, handlers.ResetParams{Caller: handlers.Caller{Session: *session}})
		return out.answer(res, res, nil, nil, func(w io.Writer) { fmt.Fprintln(w, res.Message) })
	}
	res, err := local.Sessions(ctx)
	return out.answer(res, res.Outcome, err, nil, func(w io.Writer) {
		if len(res.Sessions) == 0 {
			fmt.Fprintln(w, "No sessions.")
		}
		for _, s := range res.Sessions {
			fmt.Fprintf(w, "%s  %d documents  %d approvals  last seen %s\n", s.Session, s.Documents, s.Approvals, s.LastSeen.Local().Format(time.DateTime))
		}
	})
}

// databaseCommand opens the workspace for a command that reads its state
// database (audit, approvals, sessions): those are the database's whether or
// not a language server runs, so they are read here, not through the bridge.
func databaseCommand(ctx context.Context, name string, stderr io.Writer) (*cliEnv, *handlers.Env, func(), bool) {
	env, err := openEnv(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline %s: %v\n", name, err)
		return nil, nil, nil, false
	}
	local, err := env.Local(ctx)
	if err != nil {
		env.Close(context.WithoutCancel(ctx))
		fmt.Fprintf(stderr, "sightline %s: %v\n", name, err)
		return nil, nil, nil, false
	}
	return env, local, func() { env.Close(context.WithoutCancel(ctx)) }, true
}
