package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docsWithLinks are the documents a user reads from the README on: every
// link in them to a file of the repository names one that exists, and every
// #anchor one of its headings, as GitHub spells them.
var docsWithLinks = []string{"README.md", "docs/development.md", "docs/protocol.md", "docs/performance.md", "editors/vscode/README.md", "ARCHITECTURE.md", "LLM_FILE_ACCESS.md"}

func TestDocLinksResolve(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(b))
		anchors[file] = a
		return a
	}
	checked := 0
	for _, doc := range docsWithLinks {
		path := filepath.Join(root, filepath.FromSlash(doc))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := path
			if file != "" {
				dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q names no file: %v", doc, target, err)
					continue
				}
			}
			checked++
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
				t.Errorf("%s: link %q names no heading of %s", doc, target, filepath.Base(dest))
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d links checked: the pattern finds none?", checked)
	}
}

// headingAnchors are a markdown document's heading anchors as GitHub makes
// them: lower case, punctuation dropped, spaces as hyphens, a repeated one
// numbered.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	for _, l := range strings.Split(stripCode(doc), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		text = strings.NewReplacer("`", "", "*", "").Replace(text)
		slug := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// stripCode blanks fenced code blocks, whose lines are no headings or links.
func stripCode(doc string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			b.WriteString("\n")
			continue
		}
		if !in {
			b.WriteString(l)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The README's completion install lines work for a user who owns nothing
// but their home folder (no folder made beforehand), and zsh then finds the
// completion in the folder the README adds to fpath.
func TestReadmeCompletionLines(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), "source <(sightline completion bash)")
	if i < 0 {
		t.Fatal("README.md: no completion lines")
	}
	block := string(readme)[i:]
	block = block[:strings.Index(block, "```")]
	c := completionWorkspace(t)
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home)
	ran := 0
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cmd := exec.Command("bash", "-c", l)
		cmd.Dir, cmd.Env = c.dir, c.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README line %q: %v\n%s", l, err, out)
		}
		ran++
	}
	for _, f := range []string{".zfunc/_sightline", ".config/fish/completions/sightline.fish"} {
		if b, err := os.ReadFile(filepath.Join(home, f)); err != nil || len(b) < 1000 {
			t.Errorf("~/%s: %d bytes, %v", f, len(b), err)
		}
	}
	if ran != 3 {
		t.Errorf("ran %d README lines, want 3 (bash, zsh, fish)", ran)
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		if got := zshComplete(t, c, filepath.Join(home, ".zfunc"), []string{"sightline completion "}); !slices.Contains(got[0], "bash") {
			t.Errorf("zsh with ~/.zfunc in fpath offers %q for sightline completion", got[0])
		}
	}
}

// TestNoArchitectureSpecificFiles: no Go file of sightline's is built for
// one processor architecture only (a file name's _amd64, a build
// constraint naming one), so CI vets and packages one architecture per
// operating system and leaves the others to the release's own builds.
func TestNoArchitectureSpecificFiles(t *testing.T) {
	archs := []string{"386", "amd64", "arm", "arm64", "loong64", "mips", "mips64", "mips64le", "mipsle", "ppc64", "ppc64le", "riscv64", "s390x", "wasm"}
	constraint := regexp.MustCompile(`^//go:build (.*)$`)
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".cache" || strings.HasPrefix(d.Name(), ".") && path != "../..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		base := strings.TrimSuffix(strings.TrimSuffix(d.Name(), ".go"), "_test")
		for _, a := range archs {
			if strings.HasSuffix(base, "_"+a) {
				t.Errorf("%s is built for %s only", path, a)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if m := constraint.FindStringSubmatch(line); m != nil {
				for _, w := range regexp.MustCompile(`[A-Za-z0-9_]+`).FindAllString(m[1], -1) {
					if slices.Contains(archs, w) {
						t.Errorf("%s: its build constraint names the architecture %s", path, w)
					}
				}
			}
			if strings.HasPrefix(line, "package ") {
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadmeNamesTheSetupCommands: the README's Install section gives a
// newcomer the two setup commands from a checkout, install and test, and
// the test command is the one CI runs.
func TestReadmeNamesTheSetupCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	start := strings.Index(s, "\n## Install\n")
	if start < 0 {
		t.Fatal("README.md has no Install section")
	}
	install := s[start+1:]
	if end := strings.Index(install[1:], "\n## "); end >= 0 {
		install = install[:end+1]
	}
	for _, cmd := range []string{"go install ./cmd/sightline", "go test ./..."} {
		if !strings.Contains(install, "\n"+cmd+"\n") {
			t.Errorf("README.md's Install section does not give the command %q on a line of its own", cmd)
		}
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "\ngo test ./...\n") {
		t.Error(".ci/run does not run the README's test command, go test ./...")
	}
}
