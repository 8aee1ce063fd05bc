package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/version"
)

// valueKind is what a flag's value is, for completion.
type valueKind int

const (
	valueAny     valueKind = iota // a value, none to offer
	valueFile                     // a file
	valueDir                      // a folder
	valueSession                  // a session of the workspace (sightline session list --names)
	valueWords                    // one of flagWords
)

// flagValues are the values the completions offer for a flag taking one.
func flagValue(name string) (valueKind, []string) {
	switch name {
	case "edits", "log-file", "session-file", "revoke", "path":
		return valueFile, nil
	case "root", "state-dir":
		return valueDir, nil
	case "session":
		return valueSession, nil
	case "mode":
		return valueWords, ops.WriteModes
	case "extract":
		return valueWords, []string{"regex", "treesitter"}
	case "log-level":
		return valueWords, []string{"debug", "info", "warn", "error"}
	}
	return valueAny, nil
}

// sessionsCommand lists the workspace's sessions for a completion, starting
// no daemon for it.
const sessionsCommand = "env SIGHTLINE_DAEMON=0 sightline session list --names 2>/dev/null"

// oneLine is a summary on one line, for completion descriptions.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// runCompletion prints a completion script for bash, zsh or fish, made from
// the command table and each command's own flags (flagsOf).
func runCompletion(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: sightline completion bash|zsh|fish")
		return exitUsage
	}
	var b strings.Builder
	switch args[0] {
	case "bash":
		bashCompletion(&b)
	case "zsh":
		zshCompletion(&b)
	case "fish":
		fishCompletion(&b)
	default:
		fmt.Fprintf(stderr, "sightline completion: unknown shell %q: bash, zsh or fish\n", args[0])
		return exitUsage
	}
	io.WriteString(stdout, b.String())
	return exitOK
}

// subNames are the names of a command's subs.
func subNames(c command) []string {
	var out []string
	for _, s := range c.subs {
		out = append(out, s.name)
	}
	return out
}

func bashCompletion(w io.Writer) {
	cmds := commands()
	fmt.Fprintln(w, "# bash completion for sightline: source <(sightline completion bash)")
	fmt.Fprintln(w, "_sightline() {")
	fmt.Fprintln(w, `  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} flags= words= paths=`)
	fmt.Fprintln(w, `  COMPREPLY=()`)
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(w, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(names, " ")+" --help --version")
	// A flag's value: the same flag means the same value in every command.
	kinds := map[valueKind][]string{}
	words := map[string][]string{}
	seen := map[string]bool{}
	for _, c := range cmds {
		for _, f := range flagsOf(c) {
			if !f.value || seen[f.name] {
				continue
			}
			seen[f.name] = true
			k, ws := flagValue(f.name)
			if k == valueWords {
				words[f.name] = ws
			} else {
				kinds[k] = append(kinds[k], "--"+f.name)
			}
		}
	}
	fmt.Fprintln(w, `  case $prev in`)
	for _, name := range sortedKeys(words) {
		fmt.Fprintf(w, "    --%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", name, strings.Join(words[name], " "))
	}
	if fl := kinds[valueSession]; len(fl) > 0 {
		fmt.Fprintf(w, "    %s) COMPREPLY=($(compgen -W \"$(%s)\" -- \"$cur\")); return ;;\n", strings.Join(fl, "|"), sessionsCommand)
	}
	if fl := kinds[valueDir]; len(fl) > 0 {
		fmt.Fprintf(w, "    %s) compopt -o filenames; COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", strings.Join(fl, "|"))
	}
	if fl := kinds[valueFile]; len(fl) > 0 {
		fmt.Fprintf(w, "    %s) compopt -o filenames; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", strings.Join(fl, "|"))
	}
	if fl := kinds[valueAny]; len(fl) > 0 {
		fmt.Fprintf(w, "    %s) return ;;\n", strings.Join(fl, "|"))
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, `  case ${COMP_WORDS[1]} in`)
	for _, c := range cmds {
		var fl []string
		for _, f := range flagsOf(c) {
			fl = append(fl, "--"+f.name)
		}
		fmt.Fprintf(w, "    %s)\n      flags=%q\n", c.name, strings.Join(fl, " "))
		if c.args == argPath {
			fmt.Fprintln(w, "      paths=1")
		}
		if len(c.subs) > 0 {
			fmt.Fprintf(w, "      [ \"$COMP_CWORD\" -eq 2 ] && words=%q\n", strings.Join(subNames(c), " "))
			for _, s := range c.subs {
				if len(s.words) > 0 {
					fmt.Fprintf(w, "      [ \"$COMP_CWORD\" -eq 3 ] && [ \"${COMP_WORDS[2]}\" = %s ] && words=%q\n", s.name, strings.Join(s.words, " "))
				}
			}
		}
		fmt.Fprintln(w, "      ;;")
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, `  if [[ $cur == -* ]]; then`)
	fmt.Fprintln(w, `    COMPREPLY=($(compgen -W "$flags" -- "$cur"))`)
	fmt.Fprintln(w, `  elif [ -n "$words" ]; then`)
	fmt.Fprintln(w, `    COMPREPLY=($(compgen -W "$words" -- "$cur"))`)
	fmt.Fprintln(w, `  elif [ -n "$paths" ]; then`)
	fmt.Fprintln(w, `    compopt -o filenames`)
	fmt.Fprintln(w, `    COMPREPLY=($(compgen -f -- "$cur"))`)
	fmt.Fprintln(w, `  fi`)
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "complete -F _sightline sightline")
}

func zshCompletion(w io.Writer) {
	cmds := commands()
	fmt.Fprintln(w, "#compdef sightline")
	fmt.Fprintln(w, "# zsh completion for sightline: save as _sightline in a folder of $fpath (see the README)")
	fmt.Fprintln(w, "_sightline_sessions() {")
	fmt.Fprintf(w, "  local -a sessions\n  sessions=(${(f)\"$(%s)\"})\n  compadd -a sessions\n}\n", sessionsCommand)
	fmt.Fprintln(w, "_sightline() {")
	fmt.Fprintln(w, "  local -a cmds")
	fmt.Fprintln(w, "  cmds=(")
	for _, c := range cmds {
		fmt.Fprintf(w, "    %s\n", zshQuote(strings.ReplaceAll(c.name, ":", `\:`)+":"+oneLine(c.summary)))
	}
	fmt.Fprintln(w, "  )")
	fmt.Fprintln(w, "  if (( CURRENT == 2 )); then _describe command cmds; return; fi")
	// The command's own arguments, with the command as the first word.
	fmt.Fprintln(w, "  local cmd=$words[2] state")
	fmt.Fprintln(w, "  shift words; (( CURRENT-- ))")
	fmt.Fprintln(w, "  case $cmd in")
	for _, c := range cmds {
		specs := []string{"-S"}
		for _, f := range flagsOf(c) {
			desc := strings.NewReplacer("[", "(", "]", ")").Replace(oneLine(f.usage))
			if !f.value {
				specs = append(specs, zshQuote("--"+f.name+"["+desc+"]"))
				continue
			}
			k, ws := flagValue(f.name)
			action := " "
			switch k {
			case valueFile:
				action = "_files"
			case valueDir:
				action = "_files -/"
			case valueSession:
				action = "_sightline_sessions"
			case valueWords:
				action = "(" + strings.Join(ws, " ") + ")"
			}
			specs = append(specs, zshQuote("--"+f.name+"=["+desc+"]:"+valueName(f.name)+":"+action))
		}
		var more []string
		if len(c.subs) > 0 {
			specs = append(specs, zshQuote("1:command:("+strings.Join(subNames(c), " ")+")"))
			for _, s := range c.subs {
				if len(s.words) > 0 {
					more = append(more, fmt.Sprintf("%s) compadd %s ;;", s.name, strings.Join(s.words, " ")))
				}
			}
			if len(more) > 0 {
				specs = append(specs, zshQuote("2: :->sub"))
			}
		}
		if c.args == argPath {
			specs = append(specs, zshQuote("*:file:_files"))
		}
		fmt.Fprintf(w, "    %s)\n      _arguments %s\n", c.name, strings.Join(specs, " \\\n        "))
		if len(more) > 0 {
			fmt.Fprintf(w, "      [[ $state == sub ]] && case $words[2] in %s esac\n", strings.Join(more, " "))
		}
		fmt.Fprintln(w, "      ;;")
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, `_sightline "$@"`)
}

func fishCompletion(w io.Writer) {
	cmds := commands()
	fmt.Fprintln(w, "# fish completion for sightline: save as ~/.config/fish/completions/sightline.fish")
	fmt.Fprintln(w, "complete -c sightline -f")
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c sightline -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", strings.Join(names, " "), c.name, fishQuote(oneLine(c.summary)))
		in := "__fish_seen_subcommand_from " + c.name
		if c.args == argPath {
			fmt.Fprintf(w, "complete -c sightline -n '%s' -F\n", in)
		}
		if len(c.subs) > 0 {
			subs := strings.Join(subNames(c), " ")
			fmt.Fprintf(w, "complete -c sightline -n '%s; and not __fish_seen_subcommand_from %s' -a '%s'\n", in, subs, subs)
			for _, s := range c.subs {
				if len(s.words) > 0 {
					ws := strings.Join(s.words, " ")
					fmt.Fprintf(w, "complete -c sightline -n '%s; and __fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s' -a '%s'\n", in, s.name, ws, ws)
				}
			}
		}
		for _, f := range flagsOf(c) {
			spec := ""
			if f.value {
				switch k, ws := flagValue(f.name); k {
				case valueFile:
					spec = " -r -F"
				case valueDir:
					spec = " -x -a '(__fish_complete_directories)'"
				case valueSession:
					spec = " -x -a '(" + sessionsCommand + ")'"
				case valueWords:
					spec = " -x -a '" + strings.Join(ws, " ") + "'"
				default:
					spec = " -x"
				}
			}
			fmt.Fprintf(w, "complete -c sightline -n '%s' -l %s%s -d %s\n", in, f.name, spec, fishQuote(oneLine(f.usage)))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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
	fmt.Fprintf(stdout, ".TH SIGHTLINE 1 \"%s\" \"sightline %s\" \"User Commands\"\n", manDate(), esc.Replace(versionString()))
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

// manDate is the manual page's date: the source's (version.Date), else
// the day the binary was built (its file's time), so that the same build
// prints the same page.
func manDate() string {
	if d := version.Date(); d != "" {
		return d
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fi.ModTime().UTC().Format(time.DateOnly)
}
