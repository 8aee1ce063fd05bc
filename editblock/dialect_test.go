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

// TestPathCarriedInFence: a block with no path, inside the code fence the
// previous block ended in, takes that block's path across prose naming no
// file (aider writes several blocks for one file so); prose that names a
// file, or a fence closed in between, leaves it without one.
func TestPathCarriedInFence(t *testing.T) {
	second := "<<<<<<< SEARCH\nthree\n=======\nfour\n>>>>>>> REPLACE\n"
	first := "```text\nfoo.txt\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n"
	for _, c := range []struct {
		between string
		path    string // "" the second block is an orphan
	}{
		{"\n...\n\n", "foo.txt"},
		{"and then:\n", "foo.txt"},
		{"```\n\n...\n\n```text\n", ""},
		{"...\n```\n", ""},
		{"now in bar.txt too:\n", ""},
		{"````\n...\n", ""},         // a longer run closes the fence too
		{"```go\n...\n", "foo.txt"}, // one with an info string closes nothing
	} {
		r := Parse(first + c.between + second + "```\n")
		if len(r.Blocks) == 0 || r.Blocks[0].Path != "foo.txt" {
			t.Fatalf("%q: first block %+v", c.between, r.Blocks)
		}
		switch {
		case c.path == "" && (len(r.Blocks) != 1 || len(r.Orphans) != 1 || r.Orphans[0].Reason != OrphanNoPath):
			t.Errorf("%q: want the second block without a path: %+v", c.between, r)
		case c.path != "" && (len(r.Blocks) != 2 || r.Blocks[1].Path != c.path || !r.Blocks[1].Inherited || len(r.Orphans) != 0):
			t.Errorf("%q: want the second block for %s: %+v", c.between, c.path, r)
		}
	}
	// Outside a fence, prose still ends the path's reach.
	if r := Parse("foo.txt\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n\n...\n\n" + second); len(r.Blocks) != 1 || len(r.Orphans) != 1 {
		t.Errorf("outside a fence: %+v", r)
	}
}
