package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// flagsOf lists the flags a command's usage line names (--json, --session, …):
// the completions come from the same table as --help, so they cannot drift.
func flagsOf(c command) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range regexp.MustCompile(`--[a-z][a-z-]*`).FindAllString(c.usage, -1) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// oneLine is a summary on one line, for completion descriptions.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// runCompletion prints a completion script for bash, zsh or fish.
func runCompletion(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: sightline completion bash|zsh|fish")
		return exitUsage
	}
	cmds := commands()
	switch args[0] {
	case "bash":
		fmt.Fprintln(stdout, "# bash completion for sightline: source <(sightline completion bash)")
		fmt.Fprintln(stdout, "_sightline() {")
		fmt.Fprintln(stdout, `  local cur=${COMP_WORDS[COMP_CWORD]}`)
		fmt.Fprintln(stdout, `  if [ "$COMP_CWORD" -eq 1 ]; then`)
		names := make([]string, 0, len(cmds))
		for _, c := range cmds {
			names = append(names, c.name)
		}
		fmt.Fprintf(stdout, "    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(names, " ")+" --help --version")
		fmt.Fprintln(stdout, `  case "${COMP_WORDS[1]}" in`)
		for _, c := range cmds {
			fmt.Fprintf(stdout, "    %s) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W %q -- \"$cur\")); else COMPREPLY=($(compgen -f -- \"$cur\")); fi ;;\n", c.name, strings.Join(flagsOf(c), " "))
		}
		fmt.Fprintln(stdout, "  esac")
		fmt.Fprintln(stdout, "}")
		fmt.Fprintln(stdout, "complete -o filenames -F _sightline sightline")
	case "zsh":
		fmt.Fprintln(stdout, "#compdef sightline")
		fmt.Fprintln(stdout, "# zsh completion for sightline: sightline completion zsh > \"${fpath[1]}/_sightline\"")
		fmt.Fprintln(stdout, "_sightline() {")
		fmt.Fprintln(stdout, "  local -a cmds")
		fmt.Fprintln(stdout, "  cmds=(")
		for _, c := range cmds {
			fmt.Fprintf(stdout, "    %s\n", zshQuote(c.name+":"+oneLine(c.summary)))
		}
		fmt.Fprintln(stdout, "  )")
		fmt.Fprintln(stdout, "  if (( CURRENT == 2 )); then _describe command cmds; return; fi")
		fmt.Fprintln(stdout, "  case $words[2] in")
		for _, c := range cmds {
			fmt.Fprintf(stdout, "    %s) _arguments '*:file:_files'", c.name)
			for _, f := range flagsOf(c) {
				fmt.Fprintf(stdout, " %s", zshQuote(f+"[]"))
			}
			fmt.Fprintln(stdout, " ;;")
		}
		fmt.Fprintln(stdout, "  esac")
		fmt.Fprintln(stdout, "}")
		fmt.Fprintln(stdout, `_sightline "$@"`)
	case "fish":
		fmt.Fprintln(stdout, "# fish completion for sightline: sightline completion fish > ~/.config/fish/completions/sightline.fish")
		for _, c := range cmds {
			fmt.Fprintf(stdout, "complete -c sightline -n __fish_use_subcommand -f -a %s -d %s\n", c.name, fishQuote(oneLine(c.summary)))
			for _, f := range flagsOf(c) {
				fmt.Fprintf(stdout, "complete -c sightline -n '__fish_seen_subcommand_from %s' -l %s\n", c.name, strings.TrimPrefix(f, "--"))
			}
		}
	default:
		fmt.Fprintf(stderr, "sightline completion: unknown shell %q: bash, zsh or fish\n", args[0])
		return exitUsage
	}
	return exitOK
}

func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// runMan prints the manual page, sightline(1), in roff, from the table of
// --help.
func runMan(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 0 {
		fmt.Fprintln(stderr, "usage: sightline man")
		return exitUsage
	}
	esc := strings.NewReplacer(`\`, `\e`, "-", `\-`, "\n.", "\n\\&.", "\n'", "\n\\&'")
	fmt.Fprintf(stdout, ".TH SIGHTLINE 1 \"\" \"sightline %s\" \"User Commands\"\n", esc.Replace(versionString()))
	fmt.Fprintln(stdout, ".SH NAME\nsightline \\- a language server that knows what a coding agent has seen")
	fmt.Fprintln(stdout, ".SH SYNOPSIS\n.B sightline\n.I command\n[\\fIflags\\fR] [\\fIPATH\\fR]")
	fmt.Fprintln(stdout, ".SH DESCRIPTION\nsightline keeps a per-session ledger of what an agent was shown, guards edits against unread or stale lines, and applies edits exactly or not at all.")
	fmt.Fprintln(stdout, "A PATH is relative to the current directory (or absolute) and must be inside the workspace: the nearest folder above the current directory holding .git or .sightline.json, else the current directory (and the answers say so).")
	fmt.Fprintln(stdout, ".SH COMMANDS")
	for _, c := range commands() {
		fmt.Fprintf(stdout, ".TP\n.B sightline %s\n%s\n", esc.Replace(c.usage), esc.Replace(oneLine(c.summary)))
	}
	fmt.Fprintln(stdout, ".SH ENVIRONMENT\n.TP\nSIGHTLINE_DAEMON\n0 keeps commands from starting the workspace's daemon (1 starts it where it is off by default: macOS, Windows)\n.TP\nSIGHTLINE_STATE_DIR\nthe state folder, instead of the one under the state home")
	fmt.Fprintln(stdout, ".SH FILES\n.TP\n$XDG_STATE_HOME/sightline/NAME\\-HASH/ (else ~/.local/state/sightline/...)\na workspace's state folder: its database (state.db), its root (root), its daemon's log (daemon.log); see sightline state list")
	fmt.Fprintln(stdout, ".SH EXIT STATUS\n.TP\n0\nthe call did what it was asked\n.TP\n1\nit was refused\n.TP\n2\na usage or internal error")
	fmt.Fprintln(stdout, ".SH SEE ALSO\nThe protocol: docs/protocol.md in the source, https://github.com/sightline\\-lsp/sightline")
	return exitOK
}
