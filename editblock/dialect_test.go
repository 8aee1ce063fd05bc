package editblock

import (
	"reflect"
	"testing"
)

// TestAiderBlocks: aider's SEARCH/REPLACE blocks (also what Cline, Roo and
// Continue write) are edit blocks: the path on a line before, inside or
// outside a fence; a block right after another takes its path.
func TestAiderBlocks(t *testing.T) {
	out := "Here's the change:\n\n```text\nfoo.txt\n<<<<<<< SEARCH\nTwo\n=======\nTooooo\n>>>>>>> REPLACE\n```\n\n" +
		"bar.txt\n```python\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
	r := Parse(out)
	if len(r.Orphans) > 0 || r.Partial != nil {
		t.Fatalf("orphans %+v partial %+v", r.Orphans, r.Partial)
	}
	type got struct {
		Path     string
		Old, New []string
	}
	var gs []got
	for _, b := range r.Blocks {
		gs = append(gs, got{b.Path, b.Old, b.New})
	}
	want := []got{{"foo.txt", []string{"Two"}, []string{"Tooooo"}}, {"bar.txt", []string{}, []string{"new"}}, {"bar.txt", []string{"x"}, []string{"y"}}}
	if !reflect.DeepEqual(gs, want) {
		t.Fatalf("blocks %+v, want %+v", gs, want)
	}
	// Unfinished or pathless aider blocks are reported, never applied.
	r = Parse("<<<<<<< SEARCH\nTwo\n=======\nToo\n>>>>>>> REPLACE\n")
	if len(r.Blocks) != 0 || len(r.Orphans) != 1 || r.Orphans[0].Reason != OrphanNoPath {
		t.Fatalf("pathless: %+v", r)
	}
	r = Parse("foo.txt\n<<<<<<< SEARCH\nTwo\n=======\nToo\n\noops!\n")
	if len(r.Blocks) != 0 || r.Partial == nil {
		t.Fatalf("unclosed: %+v", r)
	}
	// A git conflict is no block.
	if r = Parse("a.go\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> main\n"); len(r.Blocks)+len(r.Orphans) != 0 || r.Partial != nil {
		t.Fatalf("conflict markers: %+v", r)
	}
}

// TestBareNameExists: a bare word (no '/', no extension) is a path when the
// caller says such a file exists, and only then.
func TestBareNameExists(t *testing.T) {
	out := "tmpk2j3h4\n<<<< EDIT\ntwo\n==== REPLACE\nnew\n>>>> EDIT END\n"
	var p Parser
	if bs := p.Write([]byte(out)); len(bs) != 0 {
		t.Fatalf("a bare word without the caller: %+v", bs)
	}
	p.Close()
	p = Parser{Exists: func(n string) bool { return n == "tmpk2j3h4" }}
	bs := p.Write([]byte(out))
	if len(bs) != 1 || bs[0].Path != "tmpk2j3h4" {
		t.Fatalf("an existing bare name: %+v", bs)
	}
	p = Parser{Exists: func(string) bool { return false }}
	if bs := p.Write([]byte("Makefile2\n" + out[len("tmpk2j3h4\n"):])); len(bs) != 0 {
		t.Fatalf("a missing bare name: %+v", bs)
	}
}
