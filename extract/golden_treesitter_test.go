//go:build treesitter

package extract

import "testing"

func TestGoldenTreeSitter(t *testing.T) {
	runGoldens(t, NewTreeSitter(), "treesitter")
}

func TestNewTreeSitter(t *testing.T) {
	x, err := New("treesitter")
	if err != nil || x == nil {
		t.Fatalf("treesitter: %v", err)
	}
	if _, ok := x.(FirstExtractor); !ok {
		t.Fatal("tree-sitter engine is not a FirstExtractor")
	}
}
