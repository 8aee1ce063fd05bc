package main

import (
	"strings"
	"testing"
)

// TestCLITextEscapesSessionsAndPaths: a session id or a path holding a
// line break (an ACP agent picks its own session ids) stays on its row of
// the audit's, the sessions' and the ledger's text, quoted, and forges no
// row of its own.
func TestCLITextEscapesSessionsAndPaths(t *testing.T) {
	c := newCLI(t, map[string]string{"f.txt": "a\nb\n"})
	if _, errOut, code := c.run("", "read", "--session", "a\nfake row", "f.txt"); code != 0 {
		t.Fatalf("read: %d %s", code, errOut)
	}
	_, errOut, _ := c.run("", "read", "--session", "a\nfake row", "no\nfake row.txt")
	if !strings.Contains(errOut, `"`) || strings.Contains(errOut, "\nfake row") {
		t.Fatalf("a refusal about a path with a line break:\n%s", errOut)
	}
	for _, x := range []struct {
		args []string
		want string
	}{
		{[]string{"audit"}, `"a\nfake row" sightline/read`},
		{[]string{"session", "list"}, `"a\nfake row"  1 documents`},
		{[]string{"ledger", "--session", "b\nfake row"}, `Session "b\nfake row" has read nothing yet.`},
	} {
		args := x.args
		out, errOut, code := c.run("", args...)
		if code != 0 || !strings.Contains(out, x.want) {
			t.Fatalf("%s: %d %s\n%s", args, code, errOut, out)
		}
		for l := range strings.Lines(out) {
			if strings.HasPrefix(l, "fake row") {
				t.Fatalf("%s: a forged row:\n%s", args, out)
			}
		}
	}
}
