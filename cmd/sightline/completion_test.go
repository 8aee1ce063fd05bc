package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completionCases are command lines (the last word being completed) and
// what a shell offers for them: subcommands, the words after them, a flag's
// values (sessions from the session list), every flag, and paths only where
// a path goes.
var completionCases = []struct {
	words []string
	want  []string // exactly these, sorted
	has   []string // at least these
	not   []string // none of these
}{
	{words: []string{"sightline", "rea"}, want: []string{"read"}},
	{words: []string{"sightline", "hook", ""}, want: []string{"claude", "cline", "codex", "copilot", "cursor", "gemini", "install", "opencode", "uninstall"}},
	{words: []string{"sightline", "hook", "install", ""}, want: []string{"claude", "cline", "codex", "copilot", "cursor", "gemini", "opencode"}},
	{words: []string{"sightline", "completion", ""}, want: []string{"bash", "fish", "zsh"}},
	{words: []string{"sightline", "write", "a.txt", "--mode", ""}, want: []string{"append", "create", "edit", "overwrite"}},
	{words: []string{"sightline", "read", "--session", ""}, want: []string{"alice"}},
	{words: []string{"sightline", "read", "--"}, has: []string{"--yes", "--pretty", "--session", "--budget"}},
	{words: []string{"sightline", "serve", "--st"}, want: []string{"--state-dir"}},
	{words: []string{"sightline", "daemon", "--r"}, want: []string{"--root"}},
	{words: []string{"sightline", "read", "a."}, want: []string{"a.txt"}},
	{words: []string{"sightline", "daemon", "--root", "s"}, want: []string{"sub"}},
	// No path goes there: no files (zsh offers the flags instead).
	{words: []string{"sightline", "audit", ""}, not: []string{"a.txt", "sub"}},
	{words: []string{"sightline", "hook", "claude", ""}, not: []string{"a.txt", "sub"}},
}

func completionWorkspace(t *testing.T) *cli {
	c := newCLI(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	if _, errOut, code := c.run("", "read", "a.txt", "--session", "alice"); code != 0 {
		t.Fatalf("read: %d %s", code, errOut)
	}
	c.env = append(c.env, "PATH="+filepath.Dir(c.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return c
}

func checkCompletion(t *testing.T, shell string, words []string, got, want, has, not []string) {
	t.Helper()
	slices.Sort(got)
	got = slices.Compact(got) // zsh adds a match once per tag that finds it
	for _, n := range not {
		if slices.Contains(got, n) {
			t.Errorf("%s: %q offers %q, which it should not", shell, strings.Join(words, " "), got)
		}
	}
	if not != nil {
		return
	}
	if has != nil {
		for _, h := range has {
			if !slices.Contains(got, h) {
				t.Errorf("%s: %q offers %q, not %s", shell, strings.Join(words, " "), got, h)
			}
		}
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: %q offers %q, want %q", shell, strings.Join(words, " "), got, want)
	}
}

// Bash completes real command lines with the script sightline prints.
func TestCompletionBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	c := completionWorkspace(t)
	var script strings.Builder
	script.WriteString("source <(sightline completion bash) || exit 1\n")
	script.WriteString(`comp() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _sightline 2>/dev/null; printf '%s\t' "${COMPREPLY[@]}"; echo; }` + "\n")
	for _, tc := range completionCases {
		script.WriteString("comp")
		for _, w := range tc.words {
			script.WriteString(" " + shellQuote(w))
			if w == "" {
				script.WriteString("''")
			}
		}
		script.WriteString("\n")
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(completionCases) {
		t.Fatalf("bash printed %d lines for %d cases:\n%s", len(lines), len(completionCases), out)
	}
	for i, tc := range completionCases {
		got := strings.Fields(strings.ReplaceAll(lines[i], "\t", " "))
		checkCompletion(t, "bash", tc.words, got, tc.want, tc.has, tc.not)
	}
}

// zshCapture types command lines ($2, $3, …), each followed by a tab,
// into one interactive zsh (in a pseudo-terminal, zsh/zpty) that loaded the
// completion from the folder $1 in fpath, and prints "<case>" then every
// match the completion system adds, for each line.
const zshCapture = `zmodload zsh/zpty || exit 1
zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits
  builtin compadd -A __hits "$@"
  local ret=$?
  (( $#__hits )) && print -r -l -- "<hit>"${^__hits}
  return $ret
}'
# Tab completes, then says so: what it printed is then all there.
zpty -w z 'cw() { zle complete-word; print -r -- "<comp""done>" }; zle -N cw; bindkey "^I" cw'
zpty -w z 'print -- "<rea""dy>"'
zpty -r z line '*<ready>*'
for cl in "${@[2,-1]}"; do
  print -- "<case>"
  zpty -n -w z "$cl"$'\t'
  zpty -r z out '*<compdone>*'
  for line in "${(@f)out}"; do
    [[ $line == *'<hit>'* ]] && print -r -- ${${line##*<hit>}%%$'\r'*}
  done
  zpty -n -w z $'\C-u'
done
zpty -d z
`

// zshComplete is what zsh offers for each command line, with the
// completion in the folder fdir.
func zshComplete(t *testing.T, c *cli, fdir string, lines []string) [][]string {
	t.Helper()
	capture := filepath.Join(t.TempDir(), "capture.zsh")
	if err := os.WriteFile(capture, []byte(zshCapture), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("zsh", append([]string{"-f", capture, fdir}, lines...)...)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	cases := strings.Split(string(out), "<case>\n")[1:]
	if len(cases) != len(lines) {
		t.Fatalf("zsh answered %d of %d lines:\n%s", len(cases), len(lines), out)
	}
	got := make([][]string, len(cases))
	for i, cs := range cases {
		for _, l := range strings.Split(cs, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				got[i] = append(got[i], strings.TrimSuffix(l, "/"))
			}
		}
	}
	return got
}

// Zsh completes real command lines, typed into an interactive shell, with
// the script installed as a user would (a folder of their own in fpath).
func TestCompletionZsh(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		if os.Getenv("SIGHTLINE_REQUIRE_REAL_CLIENTS") == "1" {
			t.Fatal("zsh is required here (SIGHTLINE_REQUIRE_REAL_CLIENTS=1)")
		}
		t.Skip("no zsh")
	}
	c := completionWorkspace(t)
	fdir := t.TempDir()
	script, errOut, code := c.run("", "completion", "zsh")
	if code != 0 {
		t.Fatalf("completion zsh: %d %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(fdir, "_sightline"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, tc := range completionCases {
		lines = append(lines, strings.Join(tc.words, " "))
	}
	for i, got := range zshComplete(t, c, fdir, lines) {
		tc := completionCases[i]
		checkCompletion(t, "zsh", tc.words, got, tc.want, tc.has, tc.not)
	}
}

// Fish completes the same command lines (complete -C: what a tab offers).
func TestCompletionFish(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("no fish")
	}
	c := completionWorkspace(t)
	script, errOut, code := c.run("", "completion", "fish")
	if code != 0 {
		t.Fatalf("completion fish: %d %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "sightline.fish")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range completionCases {
		cmd := exec.Command("fish", "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file, strings.Join(tc.words, " "))
		cmd.Dir, cmd.Env = c.dir, c.env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("fish %q: %v\n%s", tc.words, err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if w, _, _ := strings.Cut(l, "\t"); w != "" {
				got = append(got, strings.TrimSuffix(w, "/"))
			}
		}
		checkCompletion(t, "fish", tc.words, got, tc.want, tc.has, tc.not)
	}
}
