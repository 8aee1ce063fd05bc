package editblock

import "github.com/sightline-lsp/sightline/hashline"

// render is src with splices applied: the new text a plan makes.
func render(src hashline.Source, splices []hashline.Splice) string {
	var b []byte
	pos := 0
	line := func(i int) {
		l := src.Line(i)
		b = append(append(b, l.Content...), l.Term...)
	}
	for _, s := range splices {
		for ; pos < s.Start; pos++ {
			line(pos)
		}
		for _, l := range s.New {
			b = append(append(b, l.Content...), l.Term...)
		}
		pos = s.Start + s.Old
	}
	for ; pos < src.LineCount(); pos++ {
		line(pos)
	}
	return string(b)
}
