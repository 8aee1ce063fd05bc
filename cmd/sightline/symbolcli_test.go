package main

import (
	"strings"
	"testing"
)

// TestSymbolCommands: read PATH#Name reads a declaration (a name meaning
// none or several reads nothing and says which there are); outline and
// symbols are the commands derived from their tools, whose arguments are
// positional when required and flags otherwise.
func TestSymbolCommands(t *testing.T) {
	src := "package p\n\n// Get returns it.\nfunc (c *Cache) Get() int {\n\treturn c.n\n}\n\nfunc (o *Other) Get() int {\n\treturn 0\n}\n"
	c := newCLI(t, map[string]string{"p.go": src, "dir#x/f.txt": "not a symbol\n"})
	out, errOut, code := c.run("", "read", "p.go#Cache.Get")
	if code != 0 || !strings.HasPrefix(out, "3:") || !strings.Contains(out, "|func (c *Cache) Get() int {") || strings.Contains(out, "Other") {
		t.Fatalf("read p.go#Cache.Get = %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = c.run("", "read", "p.go#Get")
	if code != 1 || !strings.Contains(errOut, "ambiguous_match") || !strings.Contains(errOut, "Cache.Get (lines 3-6)") || !strings.Contains(errOut, "Other.Get (lines 8-10)") {
		t.Fatalf("read p.go#Get = %d %s", code, errOut)
	}
	// A "#" before a path separator is the path's.
	if out, errOut, code = c.run("", "read", "dir#x/f.txt"); code != 0 || !strings.Contains(out, "not a symbol") {
		t.Fatalf("read dir#x/f.txt = %d %s%s", code, out, errOut)
	}
	if out, errOut, code = c.run("", "outline", "p.go"); code != 0 || !strings.Contains(out, "method Cache.Get  lines 3-6  4:") {
		t.Fatalf("outline = %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = c.run("", "symbols", "get", "--limit", "1"); code != 0 || !strings.HasPrefix(out, "p.go#Cache.Get  method") || !strings.Contains(out, "1 more match") {
		t.Fatalf("symbols get --limit 1 = %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code = c.run("", "outline"); code != exitUsage || !strings.Contains(errOut, "usage: sightline outline PATH") {
		t.Fatalf("outline without a path = %d %s", code, errOut)
	}
}
