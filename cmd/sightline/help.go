package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// flagCapture stands for a command's standard error when its help or its
// completions are made: parseFlags hands it the command's flag set instead
// of parsing, so that --help and the completions list the flags the
// command really has.
type flagCapture struct{ sets []*flag.FlagSet }

func (c *flagCapture) Write(p []byte) (int, error) { return len(p), nil }

// captured reports whether stderr collects flag sets (flagCapture), and
// collects fs.
func captured(fs *flag.FlagSet, stderr io.Writer) bool {
	c, ok := stderr.(*flagCapture)
	if ok {
		c.sets = append(c.sets, fs)
	}
	return ok
}

// cmdFlag is a flag as help and completion show it.
type cmdFlag struct {
	name, usage string
	// value: the flag takes a value (--budget N), not a switch (--json).
	value bool
}

// flagsOf are the flags of command c (of every sub-command of it: each of
// them parses its own), from the flag sets the command itself defines.
func flagsOf(c command) []cmdFlag {
	capture := &flagCapture{}
	paths := [][]string{nil}
	for _, s := range c.subs {
		p := []string{s.name}
		if len(s.words) > 0 {
			p = append(p, s.words[0])
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		c.run(context.Background(), append(p, "--help"), strings.NewReader(""), io.Discard, capture)
	}
	seen := map[string]bool{}
	var out []cmdFlag
	for _, fs := range capture.sets {
		fs.VisitAll(func(f *flag.Flag) {
			if seen[f.Name] || f.Name == "stdio" || f.Name == "cpuprofile" {
				return // accepted for clients or maintainers, not offered
			}
			seen[f.Name] = true
			b, isBool := f.Value.(interface{ IsBoolFlag() bool })
			out = append(out, cmdFlag{name: f.Name, usage: f.Usage, value: !isBool || !b.IsBoolFlag()})
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// wantsHelp reports whether a command's arguments ask for its help (before
// a "--", after which they are another program's: sightline acp -- AGENT).
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// commandHelp prints a command's help: its synopsis, what it does, its
// flags and an example.
func commandHelp(w io.Writer, c command) {
	fmt.Fprintf(w, "Usage: sightline %s\n\n%s.\n", c.usage, capitalize(oneLine(c.summary)))
	if len(c.subs) > 0 {
		var names []string
		for _, s := range c.subs {
			names = append(names, s.name)
		}
		fmt.Fprintf(w, "\nSub-commands: %s\n", strings.Join(names, ", "))
	}
	if fl := flagsOf(c); len(fl) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		width := 0
		spell := make([]string, len(fl))
		for i, f := range fl {
			spell[i] = "--" + f.name
			if f.value {
				spell[i] += " " + valueName(f.name)
			}
			width = max(width, len(spell[i]))
		}
		for i, f := range fl {
			fmt.Fprintf(w, "  %-*s  %s\n", width, spell[i], f.usage)
		}
	}
	fmt.Fprintf(w, "\nExample:\n  %s\n", c.example)
	fmt.Fprintln(w, "\nsightline --help lists every command; sightline man prints the manual page.")
}

// valueName names a flag's value in help (--session S).
func valueName(flag string) string {
	switch flag {
	case "root", "state-dir":
		return "DIR"
	case "edits", "log-file", "session-file", "revoke", "path":
		return "FILE"
	case "budget", "limit", "max-chars":
		return "N"
	case "idle":
		return "DURATION"
	case "mode", "extract", "log-level":
		return strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
	}
	return strings.ToUpper(flag[:1])
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// unknownCommand says a command is not one, and which it may have meant.
func unknownCommand(w io.Writer, name string) {
	fmt.Fprintf(w, "sightline: unknown command %q", name)
	if m := nearest(name); m != "" {
		fmt.Fprintf(w, "; did you mean `%s`?", m)
	}
	fmt.Fprintln(w, "\nRun `sightline --help` for the list of commands.")
}

// nearest is the command closest to name by edit distance, when close
// enough to be a typo (a third of its letters, at least one), else the
// one it begins (dae: daemon).
func nearest(name string) string {
	best, bestD := "", max(1, len(name)/3)+1
	for _, c := range commands() {
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	if best == "" && len(name) >= 2 {
		for _, c := range commands() {
			if strings.HasPrefix(c.name, name) {
				return c.name
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance, counting a swap of two
// neighbours as one (red for read is one; raed too).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
