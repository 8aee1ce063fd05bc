package editblock

import "bytes"

// maxPath: a longer "path" is prose.
const maxPath = 200

// wrappers are the markdown decorations a path line may carry, outermost
// first; quotes and backticks also allow spaces inside.
var wrappers = [...]struct {
	s      string
	quoted bool
}{{"**", false}, {"`", true}, {`"`, true}, {"'", true}, {"*", false}}

// labels may precede a path: "File: src/a.go", "**File:** `src/a.go`".
var labels = [...]string{"file", "path", "filename"}

// cutLabel returns what follows a label, the label's bold or italic marks
// included.
func cutLabel(s []byte) ([]byte, bool) {
	colon := bytes.IndexByte(s, ':')
	if colon < 0 || colon > 16 {
		return nil, false
	}
	name := bytes.Trim(s[:colon], "*_ ")
	for _, l := range labels {
		if bytes.EqualFold(name, []byte(l)) {
			rest := s[colon+1:]
			if len(rest) > 0 && (rest[0] == '*' || rest[0] == '_') {
				rest = bytes.TrimLeft(rest, "*_") // "**File:** x"
			} else if len(rest) == 0 || !isSpace(rest[0]) {
				return nil, false // "path:x" may be a file name
			}
			return trimSpace(rest), true
		}
	}
	return nil, false
}

// bareNames are file names without an extension that still pass as paths.
var bareNames = [...]string{"Makefile", "Dockerfile", "Containerfile", "Gemfile", "Rakefile", "Procfile",
	"Jenkinsfile", "Justfile", "Vagrantfile", "Brewfile", "LICENSE", "README", "CODEOWNERS", "BUILD", "WORKSPACE"}

// pathFrom returns the path a line names, if the line looks like one: it
// contains '/' or '\\', or is a bare file name with an extension (main.go)
// or a well-known one (Makefile); it is shorter than maxPath, has no spaces
// unless quoted, and does not start like a comment, list item or quote.
// Markdown around it is unwrapped: "### src/a.go", "`src/a.go`",
// "**src/a.go**:", "File: src/a.go".
func pathFrom(line []byte) (string, bool) {
	s, quoted := unwrapPath(line)
	if !isPath(s, quoted) {
		return "", false
	}
	return string(s), true
}

// bareName returns the file name a line names when it is a single word of
// file name characters without '/' and without an extension (Makefile,
// tmpk2j3h4): a path only when such a file exists, which the caller knows.
func bareName(line []byte) (string, bool) {
	s, _ := unwrapPath(line)
	if len(s) == 0 || len(s) >= maxPath {
		return "", false
	}
	switch s[0] {
	case '-', '.':
		return "", false
	}
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80:
		case c == '.' || c == '_' || c == '-' || c == '+' || c == '@':
		default:
			return "", false
		}
	}
	return string(s), true
}

// unwrapPath strips the markdown a path line may carry ("### src/a.go",
// "`src/a.go`", "**src/a.go**:", "File: src/a.go") and says whether quotes
// were among it.
func unwrapPath(line []byte) ([]byte, bool) {
	s := trimSpace(line)
	if len(s) == 0 || len(s) > candMax {
		return nil, false
	}
	if s[0] == '#' { // a heading: "### src/a.go"
		i := 0
		for i < len(s) && s[i] == '#' {
			i++
		}
		if i > 6 || i == len(s) || !isSpace(s[i]) {
			return nil, false
		}
		s = trimSpace(s[i:])
	}
	quoted := false
	for changed := true; changed; {
		changed = false
		if n := len(s); n > 1 && s[n-1] == ':' {
			s, changed = trimSpace(s[:n-1]), true
		}
		for _, w := range wrappers {
			if len(s) > 2*len(w.s) && bytes.HasPrefix(s, []byte(w.s)) && bytes.HasSuffix(s, []byte(w.s)) {
				s, changed = trimSpace(s[len(w.s):len(s)-len(w.s)]), true
				quoted = quoted || w.quoted
				break
			}
		}
		if rest, ok := cutLabel(s); ok {
			s, changed = rest, true
		}
	}
	return s, quoted
}

func isPath(s []byte, quoted bool) bool {
	if len(s) == 0 || len(s) >= maxPath || bytes.HasPrefix(s, []byte("//")) || bytes.Contains(s, []byte("://")) {
		return false
	}
	switch s[0] {
	case '-', '>', '*', '#':
		return false
	}
	sep, alnum, bare := false, false, true
	for _, c := range s {
		switch {
		case c < 0x20 || c == 0x7f:
			return false
		case c == ' ':
			if !quoted {
				return false
			}
			bare = false
		case c == '"' || c == '<' || c == '>' || c == '|' || c == '?' || c == '*' || c == '`':
			return false
		case c == '/' || c == '\\':
			sep = true
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80:
			alnum = true
		case c == '.' || c == '_' || c == '-' || c == '+' || c == '@':
		default:
			bare = false
		}
	}
	if !alnum {
		return false
	}
	if last := s[len(s)-1]; last == '/' || last == '\\' {
		return false // a folder
	}
	if sep {
		return true
	}
	if !bare {
		return false
	}
	// A bare name: an extension of letters and digits after the last dot.
	if dot := bytes.LastIndexByte(s, '.'); dot >= 0 && dot < len(s)-1 {
		hasLetter := false
		for _, c := range s[dot+1:] {
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
				hasLetter = true
			case '0' <= c && c <= '9':
			default:
				return false
			}
		}
		return hasLetter
	}
	for _, n := range bareNames {
		if string(s) == n {
			return true
		}
	}
	return false
}
