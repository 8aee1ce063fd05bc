package redact

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	cases := []struct {
		in   string
		env  bool
		hide string // must not appear in the output
	}{
		{`aws_access_key_id = AKIAIOSFODNN7EXAMPLE`, false, "AKIAIOSFODNN7EXAMPLE"},
		{`token := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"`, false, "ghp_abcdefghij"},
		{`SLACK = "xoxb-123456789012-abcdefghijkl"`, false, "xoxb-1234"},
		{`auth: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`, false, "eyJzdWIi"},
		{`DATABASE_URL=postgres://app:s3cr3tpw@db.internal:5432/app`, false, "s3cr3tpw"},
		{`API_KEY=abc123`, true, "abc123"},
		{`export PORT=8080`, true, "8080"},
		{`password = "hunter2hunter2"`, false, "hunter2hunter2"},
	}
	for _, c := range cases {
		r := Redactor{Env: c.env}
		got, changed := r.Line(c.in)
		if !changed || strings.Contains(got, c.hide) {
			t.Errorf("%q → %q (changed %v)", c.in, got, changed)
		}
	}
	for _, s := range []string{`func main() {`, `x := tokenize(input)`, `// see https://example.com/a:b@c`, `port = 8080`} {
		r := Redactor{}
		if got, changed := r.Line(s); changed {
			t.Errorf("ordinary line %q redacted to %q", s, got)
		}
	}
	r := Redactor{}
	var out []string
	for _, l := range []string{"-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA", "abcd", "-----END RSA PRIVATE KEY-----", "after"} {
		s, _ := r.Line(l)
		out = append(out, s)
	}
	if got := strings.Join(out, "|"); got != "-----BEGIN RSA PRIVATE KEY-----|[REDACTED]|[REDACTED]|-----END RSA PRIVATE KEY-----|after" {
		t.Errorf("key block: %s", got)
	}
}
