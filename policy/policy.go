// Package policy decides which workspace paths an agent may touch: allow,
// deny and sensitive globs (PROTOCOL section 9). Deny wins over allow; a
// sensitive path needs the user's approval. The user's own rules (defaults,
// their config folder, the editor) and the repository's are kept apart: a
// repository's .sightline.json is content an agent may have written, so it
// can only add deny and sensitive rules, never loosen the user's.
package policy

import (
	"fmt"
	"path"
	"strings"
)

// Rules are the globs of one source, relative to the workspace root.
type Rules struct {
	Allow     []string `json:"allow"`
	Deny      []string `json:"deny"`
	Sensitive []string `json:"sensitive"`
}

// DefaultSensitive are the built-in sensitive globs: environment files,
// private keys, certificates, credential files and cloud configuration.
var defaultSensitive = []string{
	".env", ".env.*", ".envrc",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
	"*.crt", "*.cer",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", "credentials.json", "**/.aws/credentials", "**/.docker/config.json",
	"**/.kube/config", "**/gcloud/**",
}

// DefaultSensitive returns a copy of the built-in sensitive globs.
func DefaultSensitive() []string { return append([]string(nil), defaultSensitive...) }

// Kind is a verdict.
type Kind int

const (
	Allowed Kind = iota
	Sensitive
	Denied
)

// Verdict is what the policy says about one path, with the rule that said it
// (for the message an agent gets).
type Verdict struct {
	Kind    Kind
	Rule    string // the glob; "" for Allowed, or when nothing in allow matched
	Source  string // "user", "repository", "built-in"
	NoAllow bool   // denied because no allow glob matched
	Closed  bool   // denied because the rules cannot be read: Rule says why
}

// Describe names the rule for a message: `deny rule "secrets/**" (repository)`.
func (v Verdict) Describe() string {
	switch {
	case v.Closed:
		return v.Rule
	case v.NoAllow:
		return "no allow rule matches it"
	case v.Kind == Denied:
		return fmt.Sprintf("deny rule %q (%s)", v.Rule, v.Source)
	case v.Kind == Sensitive:
		return fmt.Sprintf("sensitive rule %q (%s)", v.Rule, v.Source)
	}
	return "allowed"
}

// Worse returns the stricter of two verdicts.
func Worse(a, b Verdict) Verdict {
	if b.Kind > a.Kind {
		return b
	}
	return a
}

type rule struct {
	glob   string
	source string
	segs   []seg
	// anywhere: the glob is "**/X" with X one segment: it matches a path
	// when any of its segments matches X (the path or a folder above it).
	anywhere bool
}

// seg is one glob segment, with the common shapes matched without
// path.Match: the registry checks every file of a large tree.
type seg struct {
	glob string
	kind byte // 'l' literal, 's' "*suffix", 'p' "prefix*", '*' "**", 'g' general
	lit  string
}

func newSeg(g string) seg {
	switch {
	case g == "**":
		return seg{glob: g, kind: '*'}
	case !strings.ContainsAny(g, `*?[\`):
		return seg{glob: g, kind: 'l', lit: g}
	case strings.HasPrefix(g, "*") && !strings.ContainsAny(g[1:], `*?[\`):
		return seg{glob: g, kind: 's', lit: g[1:]}
	case strings.HasSuffix(g, "*") && !strings.ContainsAny(g[:len(g)-1], `*?[\`):
		return seg{glob: g, kind: 'p', lit: g[:len(g)-1]}
	}
	return seg{glob: g, kind: 'g'}
}

func (s seg) match(name string) bool {
	switch s.kind {
	case 'l':
		return name == s.lit
	case 's':
		return strings.HasSuffix(name, s.lit)
	case 'p':
		return strings.HasPrefix(name, s.lit)
	}
	ok, _ := path.Match(s.glob, name)
	return ok
}

// Policy is a compiled set of rules. It is immutable and safe for
// concurrent use.
type Policy struct {
	allow, deny, sensitive []rule
	// closed, when set, says why no rule could be read: every path is
	// denied (Closed).
	closed string
}

// Closed is the policy in force when the configuration's rules cannot be
// read: it denies every path, why naming what to fix. Denying all is the
// one policy that cannot allow what the unread rules denied.
func Closed(why string) *Policy { return &Policy{closed: why} }

// Closed says why the policy denies every path ("" when it does not).
func (p *Policy) Closed() string { return p.closed }

// Compile builds the policy from the user's rules and the repository's. Of
// the repository's rules only deny and sensitive count.
func Compile(user, repo Rules) (*Policy, error) {
	p := &Policy{}
	var err error
	add := func(dst *[]rule, globs []string, source string) {
		for _, g := range globs {
			r, e := compile(g, source)
			if e != nil && err == nil {
				err = e
			}
			if e == nil {
				*dst = append(*dst, r)
			}
		}
	}
	add(&p.allow, user.Allow, "user")
	add(&p.deny, user.Deny, "user")
	add(&p.deny, repo.Deny, "repository")
	add(&p.sensitive, user.Sensitive, "user")
	add(&p.sensitive, repo.Sensitive, "repository")
	return p, err
}

// Validate checks that every glob compiles.
func Validate(globs []string) error {
	for _, g := range globs {
		if _, err := compile(g, ""); err != nil {
			return err
		}
	}
	return nil
}

// compile splits a glob into segments. A glob without a slash matches a name
// at any depth (like .gitignore); one with a slash is relative to the
// workspace root; a leading "/" anchors explicitly.
func compile(glob, source string) (rule, error) {
	g := strings.TrimSpace(glob)
	if g == "" {
		return rule{}, fmt.Errorf("policy: empty glob")
	}
	g = strings.TrimSuffix(g, "/")
	switch {
	case strings.HasPrefix(g, "/"):
		g = strings.TrimPrefix(g, "/")
	case !strings.Contains(g, "/"):
		g = "**/" + g
	}
	parts := strings.Split(strings.ToLower(g), "/")
	segs := make([]seg, len(parts))
	for i, s := range parts {
		if s != "**" {
			if _, err := path.Match(s, ""); err != nil {
				return rule{}, fmt.Errorf("policy: glob %q: %w", glob, err)
			}
		}
		segs[i] = newSeg(s)
	}
	r := rule{glob: glob, source: source, segs: segs}
	r.anywhere = len(segs) == 2 && segs[0].kind == '*' && segs[1].kind != '*'
	return r, nil
}

// Check returns the verdict for a path relative to the workspace root
// (slash-separated). A glob naming a folder covers everything in it. Names
// compare without case, so a case-folding file system cannot be used to slip
// past a deny rule.
func (p *Policy) Check(rel string) Verdict {
	rel = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(rel, "\\", "/")), "/")
	segs := strings.Split(strings.ToLower(rel), "/")
	if p.closed != "" {
		return Verdict{Kind: Denied, Rule: p.closed, Source: "configuration", Closed: true}
	}
	if r, ok := first(p.deny, segs); ok {
		return Verdict{Kind: Denied, Rule: r.glob, Source: r.source}
	}
	if len(p.allow) > 0 {
		if _, ok := first(p.allow, segs); !ok {
			return Verdict{Kind: Denied, NoAllow: true, Source: "user"}
		}
	}
	if r, ok := first(p.sensitive, segs); ok {
		return Verdict{Kind: Sensitive, Rule: r.glob, Source: r.source}
	}
	return Verdict{}
}

func first(rs []rule, segs []string) (rule, bool) {
	for _, r := range rs {
		if r.anywhere {
			for _, s := range segs {
				if r.segs[1].match(s) {
					return r, true
				}
			}
			continue
		}
		// The path itself or any folder above it.
		for n := len(segs); n > 0; n-- {
			if match(r.segs, segs[:n]) {
				return r, true
			}
		}
	}
	return rule{}, false
}

// match matches glob segments against path segments; "**" spans zero or
// more segments.
func match(glob []seg, segs []string) bool {
	for len(glob) > 0 {
		if glob[0].kind == '*' {
			rest := glob[1:]
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(segs); i++ {
				if match(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if !glob[0].match(segs[0]) {
			return false
		}
		glob, segs = glob[1:], segs[1:]
	}
	return len(segs) == 0
}
