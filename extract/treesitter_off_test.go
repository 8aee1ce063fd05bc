//go:build !treesitter

package extract

import (
	"strings"
	"testing"
)

func TestNewTreeSitterMissing(t *testing.T) {
	_, err := New("treesitter")
	if err == nil || !strings.Contains(err.Error(), "built without tree-sitter") {
		t.Fatalf("err = %v", err)
	}
}
