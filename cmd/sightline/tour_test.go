package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeTour runs the README's tour and compares every command's output
// with what the README shows, so the tour stays true. The commands and the
// expected output come from the README itself: change the README and the
// test follows; change the binary's behaviour and the test fails until the
// README is updated.
//
// The tour is the ```sh blocks of the "A five-minute tour" section. A line starting
// with "$ " is a command (a trailing backslash continues it); the lines up to
// the next command are its output, stdout and stderr together as a terminal
// shows them. A line that is just "..." stands for lines left out. A
// "cat FILE" of a file that does not exist yet shows a file the reader is
// assumed to have: the test creates it from the shown output.
func TestReadmeTour(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := tourSteps(t, string(readme), "A five-minute tour")
	if len(steps) == 0 {
		t.Fatal("README.md: no tour commands found in the section \"A five-minute tour\"")
	}
	realworld, err := filepath.Abs("../../testdata/realworld")
	if err != nil {
		t.Fatal(err)
	}

	// A fresh workspace (its own .git, so it is the workspace root) and state
	// folders of its own: no real state is read or touched.
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("SIGHTLINE_STATE_DIR", t.TempDir())
	t.Chdir(ws)
	for _, st := range steps {
		for _, p := range pathArgs(st.pipeline) {
			provide(t, p, realworld)
		}
	}

	for _, st := range steps {
		got := st.run(t)
		if err := matchLines(st.want, got); err != nil {
			t.Errorf("README.md line %d: $ %s\n%v\n--- README shows:\n%s\n--- sightline printed:\n%s",
				st.line, st.text, err, strings.Join(st.want, "\n"), strings.Join(got, "\n"))
		}
	}
}

// tourStep is one command of the tour and the output the README shows.
type tourStep struct {
	line     int    // where the command starts in the README
	text     string // the command as written, continuations joined
	pipeline [][]string
	want     []string
}

// tourSteps extracts the commands of the ```sh blocks of one section.
func tourSteps(t *testing.T, readme, section string) []tourStep {
	t.Helper()
	var steps []tourStep
	in, fenced := false, false
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case !fenced && strings.HasPrefix(l, "## "):
			in = strings.TrimSpace(strings.TrimPrefix(l, "## ")) == section
			continue
		case !in:
			continue
		case !fenced && strings.TrimSpace(l) == "```sh":
			fenced = true
			continue
		case fenced && strings.TrimSpace(l) == "```":
			fenced = false
			continue
		case !fenced:
			continue
		}
		if !strings.HasPrefix(l, "$ ") {
			if len(steps) == 0 {
				t.Fatalf("README.md line %d: output before any command in the tour: %q", i+1, l)
			}
			last := &steps[len(steps)-1]
			last.want = append(last.want, l)
			continue
		}
		st := tourStep{line: i + 1}
		cmd := strings.TrimPrefix(l, "$ ")
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, "\\") + " " + strings.TrimSpace(lines[i])
		}
		st.text = cmd
		p, err := parsePipeline(cmd)
		if err != nil {
			t.Fatalf("README.md line %d: %v: %s", st.line, err, cmd)
		}
		st.pipeline = p
		steps = append(steps, st)
	}
	return steps
}

// parsePipeline splits a command line into the words of each pipeline stage,
// the way a POSIX shell does for the little the tour uses: single and double
// quotes, backslash escapes, "|", "<" (kept as a word of its own) and
// comments.
func parsePipeline(s string) ([][]string, error) {
	var stages [][]string
	var words []string
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			i = len(s)
		case c == '|':
			flush()
			stages = append(stages, words)
			words = nil
		case c == '<':
			flush()
			words = append(words, "<")
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	stages = append(stages, words)
	for _, st := range stages {
		if len(st) == 0 {
			return nil, errors.New("empty pipeline stage")
		}
	}
	return stages, nil
}

// run runs the step's pipeline in the current directory and returns its
// output lines. sightline runs in process, stdout and stderr into one buffer
// in the order written, as a terminal shows them; a filter (tail, head) sees
// only stdout, as in a shell, and stderr follows.
func (st tourStep) run(t *testing.T) []string {
	t.Helper()
	var in string
	var errOut bytes.Buffer
	for i, words := range st.pipeline {
		last := i == len(st.pipeline)-1
		switch name, args := words[0], words[1:]; name {
		case "echo":
			in = strings.Join(args, " ") + "\n"
		case "cat":
			if len(args) != 1 {
				t.Fatalf("README.md line %d: cat takes one file here: %s", st.line, st.text)
			}
			if _, err := os.Stat(args[0]); errors.Is(err, os.ErrNotExist) && i == 0 && last {
				// The README shows a file the reader has: make it.
				if err := os.WriteFile(args[0], []byte(strings.Join(st.want, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(args[0])
			if err != nil {
				t.Fatalf("README.md line %d: %v", st.line, err)
			}
			in = string(b)
		case "sightline":
			var argv []string
			stdin := in
			for j := 0; j < len(args); j++ {
				if args[j] == "<" && j+1 < len(args) {
					b, err := os.ReadFile(args[j+1])
					if err != nil {
						t.Fatalf("README.md line %d: %v", st.line, err)
					}
					stdin = string(b)
					j++
					continue
				}
				argv = append(argv, args[j])
			}
			var out bytes.Buffer
			stderr := io.Writer(&out)
			if !last {
				stderr = &errOut // only stdout goes down the pipe
			}
			code := run(argv, strings.NewReader(stdin), &out, stderr)
			if code == exitUsage {
				// A usage error or a fault is never a tour step; a refusal
				// (exit 1) may be, and its output is compared like any other.
				t.Errorf("README.md line %d: exit code %d: %s\n%s", st.line, code, st.text, out.String())
			}
			in = out.String()
		case "tail", "head":
			n, err := lineCount(args)
			if err != nil {
				t.Fatalf("README.md line %d: %v: %s", st.line, err, st.text)
			}
			ls := strings.SplitAfter(in, "\n")
			if ls[len(ls)-1] == "" {
				ls = ls[:len(ls)-1]
			}
			if name == "tail" {
				ls = ls[max(0, len(ls)-n):]
			} else {
				ls = ls[:min(n, len(ls))]
			}
			in = strings.Join(ls, "")
		default:
			t.Fatalf("README.md line %d: the tour test does not know how to run %q: %s", st.line, name, st.text)
		}
	}
	out := in + errOut.String()
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// lineCount reads "-N" or "-n N".
func lineCount(args []string) (int, error) {
	switch {
	case len(args) == 1 && strings.HasPrefix(args[0], "-"):
		return strconv.Atoi(args[0][1:])
	case len(args) == 2 && args[0] == "-n":
		return strconv.Atoi(args[1])
	}
	return 0, fmt.Errorf("want -N or -n N, not %q", args)
}

// pathArgs returns the words of the sightline commands of a pipeline that
// look like relative file paths, with any :START-END range cut off.
func pathArgs(pipeline [][]string) []string {
	var out []string
	for _, words := range pipeline {
		if words[0] != "sightline" {
			continue
		}
		for _, w := range words[1:] {
			if p, _, err := parsePathRange(w); err == nil && !strings.HasPrefix(p, "-") && !filepath.IsAbs(p) && filepath.Ext(p) != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// provide puts a file the tour uses into the workspace: the real file of the
// same name in testdata/realworld, when there is one. Other names (a file the
// tour creates, a flag's value) are left alone.
func provide(t *testing.T, path, realworld string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	b, err := os.ReadFile(filepath.Join(realworld, filepath.Base(path)))
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// matchLines compares output lines with the README's, where a "..." line
// stands for any number of lines. Trailing blanks are ignored: Markdown
// editors strip them, and a diff's context line for an empty line is " ".
func matchLines(want, got []string) error {
	trim := func(s string) string { return strings.TrimRight(s, " \t") }
	// memo[i][j]: want[i:] cannot match got[j:] (already tried).
	memo := make(map[[2]int]bool)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if memo[[2]int{i, j}] {
			return false
		}
		defer func() { memo[[2]int{i, j}] = true }()
		switch {
		case i == len(want):
			return j == len(got)
		case trim(want[i]) == "...":
			for k := j; k <= len(got); k++ {
				if match(i+1, k) {
					return true
				}
			}
			return false
		case j < len(got) && trim(want[i]) == trim(got[j]):
			return match(i+1, j+1)
		}
		return false
	}
	if match(0, 0) {
		return nil
	}
	// Name the first line that differs, for the reader of the failure.
	for i := 0; i < len(want) && i < len(got); i++ {
		if trim(want[i]) == "..." {
			return errors.New("the output does not match (the lines around \"...\" differ)")
		}
		if trim(want[i]) != trim(got[i]) {
			return fmt.Errorf("output line %d differs:\n  README:    %q\n  sightline: %q", i+1, want[i], got[i])
		}
	}
	return fmt.Errorf("the README shows %d lines, sightline printed %d", len(want), len(got))
}
