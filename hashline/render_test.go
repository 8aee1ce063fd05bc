package hashline

import (
	"bytes"
	"unsafe"
)

// textAppender is the fast path of Render: a Source that copies runs of
// lines itself (*textdoc.Snapshot does, leaf by leaf) instead of one O(log n)
// lookup per line.
type textAppender interface {
	AppendText(dst []byte, from, to int) []byte
}

// appendLines appends old lines [from, to) of src with their terminators.
func appendLines(dst []byte, src Source, from, to int) []byte {
	if from >= to {
		return dst
	}
	if ta, ok := src.(textAppender); ok {
		return ta.AppendText(dst, from, to)
	}
	for i := from; i < to; i++ {
		l := src.Line(i)
		dst = append(append(dst, l.Content...), l.Term...)
	}
	return dst
}

// Render returns the whole new text: src with splices applied, O(n): the
// tests' reference for the plans' other forms.
//
// bom (a byte-order mark the caller stripped when it read the file, or "")
// is written first, unless the text already starts with it (a Source that
// kept its mark, planned with Options.BOM) or is empty.
func Render(src Source, bom string, splices []Splice) string {
	size := len(bom)
	if l, ok := src.(interface{ Len() int }); ok {
		size += l.Len()
	}
	for _, s := range splices {
		for _, l := range s.New {
			size += l.Len()
		}
	}
	buf := make([]byte, len(bom), size)
	pos := 0
	for _, s := range splices {
		buf = appendLines(buf, src, pos, s.Start)
		for _, l := range s.New {
			buf = append(append(buf, l.Content...), l.Term...)
		}
		pos = s.Start + s.Old
	}
	buf = appendLines(buf, src, pos, src.LineCount())
	text := buf[len(bom):]
	if len(text) != 0 && !bytes.HasPrefix(text, []byte(bom)) {
		copy(buf, bom)
		text = buf
	}
	// buf is never written again: the string takes it over instead of a
	// copy of the whole text.
	return unsafe.String(unsafe.SliceData(text), len(text))
}
