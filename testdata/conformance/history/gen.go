//go:build ignore

// gen.go writes a repository's commits as conformance cases, each in four
// dialects:
//
//	go run testdata/conformance/history/gen.go -git GITDIR -range A..B -out DIR [-source owner/name] [-cap BYTES] [-keep SHA,...]
//
// One txtar per non-merge commit of the range (oldest first, numbered by
// its place in the range): the commit's `git format-patch --full-index`
// (`patch`), the same change as a V4A patch (`v4a`), as aider's
// SEARCH/REPLACE edit blocks (`blocks`) and as aider's unified diff without
// line numbers (`udiff`), each from the commit's hunks with 3 lines of
// context; the parent's blobs of every file it changes (`before/NAME`; a
// name ending in " noeol" when the blob has no final newline) and the blob
// id of each file it leaves (`want`: "NAME BLOBID", "NAME deleted"). A
// dialect that cannot say the change has no section and a comment line
// `DIALECT: not expressible (why)`. Files are bytes: line terminators,
// byte order marks and legacy encodings are kept as the blobs hold them.
//
// Skipped, and printed: commits touching a binary file, a symlink or a
// submodule, a path git quotes, a line the archive cannot hold, and (unless
// kept) commits whose parent's blobs of the changed files pass -cap bytes.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var gitDir string

func git(args ...string) []byte {
	cmd := exec.Command("git", append([]string{"--git-dir=" + gitDir, "-c", "core.quotepath=true", "-c", "diff.noprefix=false", "-c", "diff.mnemonicprefix=false", "-c", "diff.algorithm=myers"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// change is one file of a commit, as diff-tree -M says it.
type change struct {
	status           byte // A, D, M, R, T
	score            int  // rename similarity
	oldMode, newMode string
	oldID, newID     string
	oldPath, newPath string
	old, new         []byte
	hunks            []hunk
}

// hunk is one hunk of git's diff with 3 lines of context: its lines with
// their ' ', '-', '+', '\' prefix, content bytes as the blobs hold them.
type hunk struct {
	oldStart, oldCount int
	lines              []string
}

const zero = "0000000000000000000000000000000000000000"

func changes(parent, c string) []change {
	raw := git("diff-tree", "-r", "-M", "--no-commit-id", "--no-abbrev", "-z", parent, c)
	f := bytes.Split(raw, []byte{0})
	var out []change
	for i := 0; i+1 < len(f); {
		meta := strings.Fields(strings.TrimPrefix(string(f[i]), ":"))
		ch := change{oldMode: meta[0], newMode: meta[1], oldID: meta[2], newID: meta[3], status: meta[4][0]}
		if len(meta[4]) > 1 {
			ch.score, _ = strconv.Atoi(meta[4][1:])
		}
		ch.oldPath = string(f[i+1])
		ch.newPath = ch.oldPath
		i += 2
		if ch.status == 'R' || ch.status == 'C' {
			ch.newPath = string(f[i])
			i++
		}
		out = append(out, ch)
	}
	return out
}

var dividerRe = regexp.MustCompile(`^(<{5,9} SEARCH>?|={5,9}|>{5,9} REPLACE)\s*$`)

func noEOL(b []byte) bool { return len(b) > 0 && b[len(b)-1] != '\n' }

// lines splits a blob into its lines without "\n" (a "\r" stays).
func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.Split(string(b), "\n")
	if s[len(s)-1] == "" {
		s = s[:len(s)-1]
	}
	return s
}

// diffHunks is git's diff of two blobs with 3 lines of context.
func diffHunks(oldID, newID string) []hunk {
	out := git("diff", "-U3", "--no-color", "--no-ext-diff", "--full-index", oldID, newID)
	var hs []hunk
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "@@ ") {
			f := strings.Fields(l)
			a, b, _ := strings.Cut(strings.TrimPrefix(f[1], "-"), ",")
			h := hunk{oldCount: 1}
			h.oldStart, _ = strconv.Atoi(a)
			if b != "" {
				h.oldCount, _ = strconv.Atoi(b)
			}
			hs = append(hs, h)
			continue
		}
		if len(hs) == 0 || l == "" {
			continue
		}
		switch l[0] {
		case ' ', '-', '+', '\\':
			hs[len(hs)-1].lines = append(hs[len(hs)-1].lines, l)
		}
	}
	return hs
}

func main() {
	rng := flag.String("range", "", "the commits: A..B as git rev-list takes it (A excluded)")
	flag.StringVar(&gitDir, "git", "", "the repository's git directory")
	outDir := flag.String("out", "", "the folder to write")
	source := flag.String("source", "", "owner/name, for the archives' comment")
	capBytes := flag.Int("cap", 64000, "skip commits whose parent's blobs of the changed files pass this many bytes")
	keep := flag.String("keep", "", "commits (prefixes) kept whatever their size")
	flag.Parse()
	if gitDir == "" || *rng == "" || *outDir == "" {
		flag.Usage()
		os.Exit(2)
	}
	os.MkdirAll(*outDir, 0o755)
	revs := strings.Fields(string(git("rev-list", "--no-merges", "--reverse", *rng)))
	written := 0
	for n, c := range revs {
		parent := strings.TrimSpace(string(git("rev-parse", c+"^")))
		name := fmt.Sprintf("%03d-%s", n+1, c[:12])
		text, why := commitCase(c, parent, *source, *capBytes, kept(c, *keep))
		if why != "" {
			fmt.Printf("skipped %s: %s\n", name, why)
			continue
		}
		if err := os.WriteFile(filepath.Join(*outDir, name+".txtar"), text, 0o644); err != nil {
			log.Fatal(err)
		}
		written++
	}
	fmt.Printf("%d of %d commits written\n", written, len(revs))
}

func kept(c, list string) bool {
	for _, k := range strings.Split(list, ",") {
		if k != "" && strings.HasPrefix(c, k) {
			return true
		}
	}
	return false
}

func commitCase(c, parent, source string, capBytes int, keep bool) ([]byte, string) {
	chs := changes(parent, c)
	before := 0
	for i := range chs {
		ch := &chs[i]
		for _, m := range []string{ch.oldMode, ch.newMode} {
			if m == "120000" || m == "160000" {
				return nil, "a symlink or submodule"
			}
		}
		if strings.ContainsAny(ch.oldPath+ch.newPath, "\"\\\t\n ") {
			return nil, "a path git quotes"
		}
		if ch.oldID != zero {
			ch.old = git("cat-file", "blob", ch.oldID)
			before += len(ch.old)
		}
		if ch.newID != zero {
			ch.new = git("cat-file", "blob", ch.newID)
		}
		if bytes.IndexByte(ch.old, 0) >= 0 || bytes.IndexByte(ch.new, 0) >= 0 {
			return nil, "a binary file"
		}
		if ch.status == 'M' || ch.status == 'R' && ch.oldID != ch.newID {
			ch.hunks = diffHunks(ch.oldID, ch.newID)
		}
		if ch.status == 'C' || ch.status == 'T' {
			return nil, fmt.Sprintf("a %c change", ch.status)
		}
	}
	if before > capBytes && !keep {
		return nil, fmt.Sprintf("%d bytes of files before, over the cap", before)
	}
	var b bytes.Buffer
	nSections = 1 // want
	b.Write(git("log", "-1", "--format=commit %H%nparent %P%nsubject %s", c))
	if source != "" {
		fmt.Fprintf(&b, "source: %s\n", source)
	}
	sections := []struct{ name, text, why string }{
		{"patch", string(git("format-patch", "-1", "--stdout", "--no-signature", "--full-index", c)), ""},
	}
	for _, d := range []struct {
		name string
		f    func([]change) (string, string)
	}{{"v4a", v4a}, {"blocks", blocks}, {"udiff", udiff}} {
		text, why := d.f(chs)
		sections = append(sections, struct{ name, text, why string }{d.name, text, why})
	}
	for _, s := range sections {
		if s.why != "" {
			fmt.Fprintf(&b, "%s: not expressible (%s)\n", s.name, s.why)
		}
	}
	for _, s := range sections {
		if s.why == "" {
			writeFile(&b, s.name, []byte(s.text))
		}
	}
	for _, ch := range chs {
		if ch.status != 'A' {
			writeFile(&b, "before/"+ch.oldPath, ch.old)
		}
	}
	b.WriteString("-- want --\n")
	for _, ch := range chs {
		switch ch.status {
		case 'D':
			fmt.Fprintf(&b, "%s deleted\n", ch.oldPath)
		case 'R':
			fmt.Fprintf(&b, "%s deleted\n%s %s\n", ch.oldPath, ch.newPath, ch.newID)
		default:
			fmt.Fprintf(&b, "%s %s\n", ch.newPath, ch.newID)
		}
	}
	// Every line must stay a line of its section: the archive's headers
	// are the only lines that read as one.
	n := 0
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") {
			n++
		}
	}
	if n != nSections {
		return nil, "a line the archive would read as a file header"
	}
	return b.Bytes(), ""
}

// sections counts the sections written to the case being made.
var nSections int

// writeFile writes a section, marking a text without final newline.
func writeFile(b *bytes.Buffer, name string, text []byte) {
	h := "-- " + name + " --"
	if noEOL(text) {
		h = "-- " + name + " noeol --"
	}
	nSections++
	b.WriteString(h + "\n")
	b.Write(text)
	if noEOL(text) {
		b.WriteByte('\n')
	}
}

// common says why no dialect but format-patch says a change, or "".
func common(ch change) string {
	if ch.oldMode != ch.newMode && ch.status == 'M' && ch.oldID == ch.newID {
		return "a mode change"
	}
	return ""
}

// v4a is the commit as OpenAI's apply_patch envelope.
func v4a(chs []change) (string, string) {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, ch := range chs {
		if why := common(ch); why != "" {
			return "", why
		}
		switch ch.status {
		case 'A':
			if noEOL(ch.new) {
				return "", "a new file without final newline"
			}
			fmt.Fprintf(&b, "*** Add File: %s\n", ch.newPath)
			for _, l := range lines(ch.new) {
				b.WriteString("+" + l + "\n")
			}
		case 'D':
			fmt.Fprintf(&b, "*** Delete File: %s\n", ch.oldPath)
		case 'M', 'R':
			if ch.status == 'R' && ch.oldID == ch.newID {
				return "", "a rename without a change of content"
			}
			if noEOL(ch.old) != noEOL(ch.new) || len(ch.old) == 0 && noEOL(ch.new) {
				return "", "a change of the final newline"
			}
			fmt.Fprintf(&b, "*** Update File: %s\n", ch.oldPath)
			if ch.status == 'R' {
				fmt.Fprintf(&b, "*** Move to: %s\n", ch.newPath)
			}
			n := len(lines(ch.old))
			for _, h := range ch.hunks {
				b.WriteString("@@\n")
				for _, l := range h.lines {
					if l[0] != '\\' {
						b.WriteString(l + "\n")
					}
				}
				if h.oldStart+h.oldCount-1 == n && h.oldCount > 0 {
					b.WriteString("*** End of File\n")
				}
			}
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String(), ""
}

// blocks is the commit as aider's SEARCH/REPLACE edit blocks, one a hunk.
func blocks(chs []change) (string, string) {
	var b strings.Builder
	block := func(path string, old, new []string) string {
		for _, l := range append(append([]string(nil), old...), new...) {
			if dividerRe.MatchString(l) {
				return fmt.Sprintf("a line of %s reads as an edit block's marker", path)
			}
		}
		fmt.Fprintf(&b, "%s\n```\n<<<<<<< SEARCH\n", path)
		for _, l := range old {
			b.WriteString(l + "\n")
		}
		b.WriteString("=======\n")
		for _, l := range new {
			b.WriteString(l + "\n")
		}
		b.WriteString(">>>>>>> REPLACE\n```\n\n")
		return ""
	}
	for _, ch := range chs {
		if why := common(ch); why != "" {
			return "", why
		}
		switch ch.status {
		case 'A':
			if noEOL(ch.new) {
				return "", "a new file without final newline"
			}
			if why := block(ch.newPath, nil, lines(ch.new)); why != "" {
				return "", why
			}
		case 'D':
			return "", "a deletion"
		case 'R':
			return "", "a rename"
		case 'M':
			if noEOL(ch.old) != noEOL(ch.new) || len(ch.old) == 0 && noEOL(ch.new) {
				return "", "a change of the final newline"
			}
			for _, h := range ch.hunks {
				var old, new []string
				for _, l := range h.lines {
					switch l[0] {
					case ' ':
						old, new = append(old, l[1:]), append(new, l[1:])
					case '-':
						old = append(old, l[1:])
					case '+':
						new = append(new, l[1:])
					}
				}
				if why := block(ch.newPath, old, new); why != "" {
					return "", why
				}
			}
		}
	}
	return b.String(), ""
}

// udiff is the commit as aider's unified diff: `@@ ... @@` hunk headers
// without line numbers.
func udiff(chs []change) (string, string) {
	var b strings.Builder
	b.WriteString("```diff\n")
	for _, ch := range chs {
		if why := common(ch); why != "" {
			return "", why
		}
		switch ch.status {
		case 'A':
			fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n", ch.newPath)
			if len(ch.new) > 0 {
				b.WriteString("@@ ... @@\n")
				for _, l := range lines(ch.new) {
					b.WriteString("+" + l + "\n")
				}
				if noEOL(ch.new) {
					b.WriteString("\\ No newline at end of file\n")
				}
			}
		case 'D':
			fmt.Fprintf(&b, "--- a/%s\n+++ /dev/null\n", ch.oldPath)
			if len(ch.old) > 0 {
				b.WriteString("@@ ... @@\n")
				for _, l := range lines(ch.old) {
					b.WriteString("-" + l + "\n")
				}
				if noEOL(ch.old) {
					b.WriteString("\\ No newline at end of file\n")
				}
			}
		case 'M', 'R':
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", ch.oldPath, ch.newPath)
			for _, h := range ch.hunks {
				b.WriteString("@@ ... @@\n")
				for _, l := range h.lines {
					b.WriteString(l + "\n")
				}
			}
		}
	}
	b.WriteString("```\n")
	return b.String(), ""
}
