package editblock

import (
	"fmt"
	"testing"

	"github.com/sightline-lsp/sightline/hashline"
)

func TestQuick(t *testing.T) {
	out := "Here is the fix:\n\n### `src/math.py`\n\n```python\n<<<< EDIT\ndef multiply(a, b):\n    return a + b  # BUG\n==== REPLACE\ndef multiply(a, b):\n    return a * b\n>>>> EDIT END\n```\n\nprose\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\nsrc/b.go\n<<<< EDIT\nfoo"
	r := Parse(out)
	fmt.Printf("%+v\n", r.Blocks)
	fmt.Printf("%+v\n", r.Orphans)
	fmt.Printf("%+v\n", r.Partial)
	src := hashline.TextSource("import os\n\ndef multiply(a, b):\n    return a + b  # BUG\n\nprint(1)\n")
	m, d := MatchBlock(src, r.Blocks[0], "\n")
	fmt.Printf("%+v %+v\n", m, d)
	os := ApplySequence(src, r.Blocks[:1], "\n")
	fmt.Printf("%q\n%s\n", os[0].Text, os[0].Diff("src/math.py", 3))
}
