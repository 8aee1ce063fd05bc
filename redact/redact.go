// Package redact hides credentials in text shown without the user's
// approval (summaries and their excerpts): cloud keys, tokens, JWTs, private
// key blocks, connection strings with passwords, and the values of env
// files. Patterns are deliberately specific: a redaction that fires on
// ordinary code would make summaries useless.
package redact

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// Mask replaces a secret.
const Mask = "[REDACTED]"

// rules are the patterns, compiled on first use: every CLI process links
// this package, few redact anything, and compiling them costs half a
// millisecond of each start.
var rules = sync.OnceValue(func() *ruleSet {
	return &ruleSet{
		patterns: []*regexp.Regexp{
			regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b`), // AWS access key ids
			regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,255}\b`),                           // GitHub tokens
			regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{40,255}\b`),
			regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}\b`),                               // Slack tokens
			regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), // JWTs
			regexp.MustCompile(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b`),                        // OpenAI / Anthropic keys
			regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`),                                       // Google API keys
			regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{16,}\b`),                             // Stripe
		},
		// connection strings: scheme://user:password@host: the password goes.
		connString: regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@'"]+:)([^\s@'"/]+)(@)`),
		// assignments of secret-looking names in code and config:
		// password = "...", "api_key": "...", SECRET_TOKEN: ...
		secretAssign: regexp.MustCompile(`(?i)((?:passw(?:or)?d|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth)["']?\s*[:=]\s*["']?)([^\s"',;]{6,})`),
		// envLine is KEY=value (optionally "export KEY=value").
		envLine: regexp.MustCompile(`^(\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*=\s*)(.+)$`),
	}
})

type ruleSet struct {
	patterns                          []*regexp.Regexp
	connString, secretAssign, envLine *regexp.Regexp
}

const (
	beginKey = "-----BEGIN "
	endKey   = "-----END "
)

// IsEnvFile reports whether a path names an env file (.env, .env.local,
// production.env), whose every value is treated as a secret.
func IsEnvFile(p string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	return base == ".env" || strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".env") || base == ".envrc"
}

// Redactor redacts the lines of one text in order: it remembers whether it
// is inside a private key block.
type Redactor struct {
	Env   bool // the text is an env file: every value is hidden
	inKey bool
}

// Line returns a line with its secrets masked, and whether it changed.
func (r *Redactor) Line(s string) (string, bool) {
	if r.inKey {
		if strings.Contains(s, endKey) {
			r.inKey = false
			return s, false
		}
		return Mask, true
	}
	if i := strings.Index(s, beginKey); i >= 0 && strings.Contains(s[i:], "PRIVATE KEY") {
		r.inKey = !strings.Contains(s[i+len(beginKey):], endKey)
		return s, false
	}
	out := s
	rs := rules()
	if r.Env {
		if m := rs.envLine.FindStringSubmatch(out); m != nil && strings.TrimSpace(m[2]) != "" {
			out = m[1] + Mask
		}
	}
	for _, p := range rs.patterns {
		out = p.ReplaceAllString(out, Mask)
	}
	out = rs.connString.ReplaceAllString(out, "${1}"+Mask+"${3}")
	out = rs.secretAssign.ReplaceAllStringFunc(out, func(m string) string {
		sub := rs.secretAssign.FindStringSubmatch(m)
		if sub[2] == Mask || strings.HasPrefix(sub[2], Mask) {
			return m
		}
		return sub[1] + Mask
	})
	return out, out != s
}

// String redacts a single piece of text, line by line.
func String(s string, env bool) string {
	r := Redactor{Env: env}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i], _ = r.Line(l)
	}
	return strings.Join(ls, "\n")
}
