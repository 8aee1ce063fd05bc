package hashline

import "testing"

func TestEchoedLine(t *testing.T) {
	real := AppendLine(nil, 12, "\treturn nil")
	for _, c := range []struct {
		lines []string
		want  int
	}{
		{[]string{"x := 1", string(real)}, 1},
		{[]string{"12:abcd|\treturn nil"}, -1}, // a prefix whose hash is not the rest's
		{[]string{"a", "b"}, -1},
		{nil, -1},
	} {
		if got := EchoedLine(c.lines); got != c.want {
			t.Errorf("EchoedLine(%q) = %d, want %d", c.lines, got, c.want)
		}
	}
}
