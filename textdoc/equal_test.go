package textdoc

import (
	"strings"
	"testing"
)

// TestEqualWithoutBuilding: comparing an edited snapshot (its text in
// pieces) with a text tells equal from different at every place, and
// builds no copy of the text (the workspace compares a file read again
// with the document it had).
func TestEqualWithoutBuilding(t *testing.T) {
	text := goSource(3000, 1)
	s, _, err := New(text).Apply([]Change{{Range: &Range{Start: Pos{Line: 1500}, End: Pos{Line: 1500}}, Text: "// added\n"}}, UTF8)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(text, "\n")
	want := strings.Join(lines[:1500], "") + "// added\n" + strings.Join(lines[1500:], "")
	if allocs := testing.AllocsPerRun(20, func() {
		if !s.Equal(want) {
			t.Fatal("an edited snapshot is not Equal to its text")
		}
	}); allocs != 0 {
		t.Fatalf("Equal allocated %.0f times: it built the text", allocs)
	}
	for _, at := range []int{0, len(want) / 2, len(want) - 1} {
		other := want[:at] + "#" + want[at+1:]
		if s.Equal(other) {
			t.Fatalf("Equal to a text that differs at byte %d", at)
		}
	}
	if s.Equal(want+"x") || s.Equal(want[:len(want)-1]) || !New("").Equal("") || New("").Equal("x") {
		t.Fatal("Equal and the length")
	}
}
