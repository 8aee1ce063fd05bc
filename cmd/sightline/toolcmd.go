package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

// toolCommands are the commands derived from the operation table: every
// agent tool that no command of its own serves is a command named as the
// tool without its "sightline_" prefix, whose positional arguments are the
// tool's required arguments in order and whose flags are the rest (a flag
// per argument, --json and --yes besides). A new operation thus reaches
// the CLI without a file here.
func toolCommands(own []command) []command {
	var out []command
	for _, op := range ops.Table() {
		t := op.Tool()
		if t == nil {
			continue
		}
		name := strings.TrimPrefix(t.Name, "sightline_")
		if slices.ContainsFunc(own, func(c command) bool { return c.name == name }) {
			continue
		}
		s := t.Schema()
		var usage strings.Builder
		usage.WriteString(name)
		for _, r := range s.Required {
			usage.WriteString(" " + strings.ToUpper(r))
		}
		for _, p := range props(t) {
			if !slices.Contains(s.Required, p) {
				fmt.Fprintf(&usage, " [--%s V]", p)
			}
		}
		usage.WriteString(" [--json]")
		out = append(out, command{name: name, usage: usage.String(), summary: strings.ToLower(t.Title[:1]) + t.Title[1:] + " (the agent tool " + t.Name + ")",
			run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
				return runTool(ctx, op, name, usage.String(), args, stdin, stdout, stderr)
			}})
	}
	return out
}

// props are a tool's argument names, in a stable order.
func props(t *ops.Tool) []string {
	var ps []string
	for p := range t.Schema().Properties {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// runTool runs an operation as its agent tool, its arguments from the
// command line; a path argument is relative to the current directory, as
// the CLI's paths are.
func runTool(ctx context.Context, op ops.Op, name, usage string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	t := op.Tool()
	s := t.Schema()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	yes := approvalFlag(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	vals := map[string]*string{}
	bools := map[string]*bool{}
	for _, p := range props(t) {
		if s.Properties[p].Type == "boolean" {
			bools[p] = fs.Bool(p, false, s.Properties[p].Description)
		} else {
			vals[p] = fs.String(p, "", s.Properties[p].Description)
		}
	}
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != len(s.Required) {
		fmt.Fprintln(stderr, "usage: sightline "+usage)
		return exitUsage
	}
	in := map[string]json.RawMessage{}
	set := func(p, v string) {
		switch s.Properties[p].Type {
		case "integer":
			if _, err := strconv.Atoi(v); err == nil {
				in[p] = json.RawMessage(v)
				return
			}
		case "array", "object":
			if json.Valid([]byte(v)) {
				in[p] = json.RawMessage(v)
				return
			}
		}
		in[p], _ = json.Marshal(v)
	}
	for i, p := range s.Required {
		set(p, pos[i])
	}
	for p, v := range vals {
		if *v != "" && !slices.Contains(s.Required, p) {
			set(p, *v)
		}
	}
	for p, v := range bools {
		if *v {
			in[p] = json.RawMessage("true")
		}
	}
	raw, _ := json.Marshal(in)
	rt, err := openRouter(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline %s: %v\n", name, err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{name, stdout, stderr, *asJSON, *pretty}
	p, err := t.Params(raw, engine.Caller{Session: defaultSession()}, rt.key)
	if err != nil {
		fmt.Fprintf(stderr, "sightline %s: %v\n", name, err)
		return exitUsage
	}
	return out.call(ctx, rt, op, p)
}
