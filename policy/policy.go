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
}

// Describe names the rule for a message: `deny rule "secrets/**" (repository)`.
func (v Verdict) Describe() string {
	switch {
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
	segs   []string
}

// Policy is a compiled set of rules. It is immutable and safe for
// concurrent use.
type Policy struct {
	allow, deny, sensitive []rule
}

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
	segs := strings.Split(strings.ToLower(g), "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			return rule{}, fmt.Errorf("policy: glob %q: %w", glob, err)
		}
	}
	return rule{glob: glob, source: source, segs: segs}, nil
}

// Check returns the verdict for a path relative to the workspace root
// (slash-separated). A glob naming a folder covers everything in it. Names
// compare without case, so a case-folding file system cannot be used to slip
// past a deny rule.
func (p *Policy) Check(rel string) Verdict {
	rel = strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(rel, "\\", "/")), "/")
	segs := strings.Split(strings.ToLower(rel), "/")
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
func match(glob, segs []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
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
		if ok, _ := path.Match(glob[0], segs[0]); !ok {
			return false
		}
		glob, segs = glob[1:], segs[1:]
	}
	return len(segs) == 0
}
