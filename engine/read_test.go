package engine_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestReadBudgetCountsCharacters: the budget is in characters, annotation
// included; multi-byte text gets as many whole lines as fit, not fewer.
func TestReadBudgetCountsCharacters(t *testing.T) {
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	line := strings.Repeat("é", 40) // 40 characters, 80 bytes
	u := string(workspace.FromPath(filepath.Join(root, "multi.txt")))
	env.WS.Open(u, "plaintext", 1, strings.Repeat(line+"\n", 100))
	for _, budget := range []int{500, 1000, 2000} {
		p := engine.ReadParams{TextDocument: engine.TextDocument{URI: u}}
		p.Budget = &struct {
			Chars int `json:"chars"`
		}{budget}
		res, err := env.Read(context.Background(), p)
		if err != nil || !res.OK {
			t.Fatal(err, res.Message)
		}
		// Each annotated line is "N:hash|" + 40 + "\n".
		per := func(n int) int { return len(strconv.Itoa(n)) + 6 + 40 + 1 }
		want, used := 0, 0
		for n := 1; n <= 100 && used+per(n) <= budget; n++ {
			used += per(n)
			want = n
		}
		if res.Range.End != want || utf8.RuneCountInString(res.Content) != used || !res.Truncated {
			t.Errorf("budget %d: got lines 1-%d (%d chars), want 1-%d (%d chars)", budget, res.Range.End, utf8.RuneCountInString(res.Content), want, used)
		}
	}
}
