package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// The binary form of an Entry, as the state database keeps it. Every call
// that restores a document decodes its entries and every call that reads
// writes one back, so an entry must cost what it holds: a few bytes a
// record, no reflection, no time parsing. Numbers are varints, each a
// difference from the one before it (ranges from the end of the previous
// range, a record's revision and time from the previous record's), and the
// agents and kinds are written once, in a table the records index.
//
//	entryFormat
//	varint total lines, byte flags (1 created, 2 seen)
//	ranges read, ranges authored, ranges stale
//	uvarint n, n × (uvarint length, bytes): the strings table
//	uvarint n, n × record:
//	  varint rev delta, varint seconds delta, uvarint nanoseconds,
//	  uvarint agent index, uvarint kind index,
//	  varint range start delta, varint range length, ranges lines
//	ranges: uvarint n, n × (varint start delta, varint length)
//
// The first byte is never '{': an entry an earlier sightline wrote as JSON
// is told apart by it.
const entryFormat = 0x01

// MarshalBinary encodes e in the state database's form.
func (e Entry) MarshalBinary() ([]byte, error) {
	return e.AppendBinary(make([]byte, 0, 16+8*(len(e.Read)+len(e.Authored)+len(e.Stale))+24*len(e.Records)))
}

// AppendBinary appends e's binary form to b.
func (e Entry) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, entryFormat)
	b = binary.AppendVarint(b, int64(e.TotalLines))
	var flags byte
	if e.Created {
		flags |= 1
	}
	if e.Seen {
		flags |= 2
	}
	b = append(b, flags)
	b = appendRanges(b, e.Read)
	b = appendRanges(b, e.Authored)
	b = appendRanges(b, e.Stale)

	index := map[string]uint64{}
	var table []string
	at := func(s string) uint64 {
		i, ok := index[s]
		if !ok {
			i = uint64(len(table))
			index[s] = i
			table = append(table, s)
		}
		return i
	}
	for _, r := range e.Records {
		at(r.Agent)
		at(string(r.Kind))
	}
	b = binary.AppendUvarint(b, uint64(len(table)))
	for _, s := range table {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Records)))
	var rev, sec int64
	var start int
	for _, r := range e.Records {
		b = binary.AppendVarint(b, r.Rev-rev)
		s := r.Time.Unix()
		b = binary.AppendVarint(b, s-sec)
		b = binary.AppendUvarint(b, uint64(r.Time.Nanosecond()))
		b = binary.AppendUvarint(b, index[r.Agent])
		b = binary.AppendUvarint(b, index[string(r.Kind)])
		b = binary.AppendVarint(b, int64(r.Range.Start-start))
		b = binary.AppendVarint(b, int64(r.Range.End-r.Range.Start))
		b = appendRanges(b, r.Lines)
		rev, sec, start = r.Rev, s, r.Range.Start
	}
	return b, nil
}

func appendRanges(b []byte, rs []Range) []byte {
	b = binary.AppendUvarint(b, uint64(len(rs)))
	prev := 0
	for _, r := range rs {
		b = binary.AppendVarint(b, int64(r.Start-prev))
		b = binary.AppendVarint(b, int64(r.End-r.Start))
		prev = r.End
	}
	return b
}

// errEntry is what a byte string that is not an entry's binary form is
// refused with.
var errEntry = errors.New("not a ledger entry")

// UnmarshalBinary decodes an entry MarshalBinary encoded. Anything else (a
// cut, a byte too many, another format) is an error, never another entry.
func (e *Entry) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	if len(data) == 0 || data[0] != entryFormat {
		return fmt.Errorf("%w: format %q", errEntry, data[:min(len(data), 1)])
	}
	d.b = d.b[1:]
	var out Entry
	out.TotalLines = d.int()
	flags := d.byte()
	out.Created, out.Seen = flags&1 != 0, flags&2 != 0
	out.Read, out.Authored, out.Stale = d.ranges(), d.ranges(), d.ranges()
	table := make([]string, d.count(1))
	for i := range table {
		n := d.count(1)
		if d.err == nil {
			table[i], d.b = string(d.b[:n]), d.b[n:]
		}
	}
	str := func() string {
		i := d.uint()
		if d.err == nil && i >= uint64(len(table)) {
			d.fail("string %d of %d", i, len(table))
		}
		if d.err != nil {
			return ""
		}
		return table[i]
	}
	// A record takes at least 8 bytes: 7 numbers and its count of lines.
	if n := d.count(8); n > 0 {
		out.Records = make([]Record, n)
	}
	var rev, sec int64
	var start int
	// The records' lines share one array: a record's are cut from it once
	// all are read (ends[i] is where record i's end).
	var lines []Range
	ends := make([]int, len(out.Records))
	for i := range out.Records {
		r := &out.Records[i]
		rev += d.varint()
		sec += d.varint()
		ns := d.uint()
		if ns > 999_999_999 {
			d.fail("%d nanoseconds", ns)
		}
		r.Rev, r.Time = rev, time.Unix(sec, int64(ns))
		r.Agent, r.Kind = str(), Kind(str())
		start += d.int()
		r.Range = Range{Start: start, End: start + d.int()}
		lines = d.appendRanges(lines)
		ends[i] = len(lines)
		if d.err != nil {
			break
		}
	}
	if d.err == nil {
		from := 0
		for i := range out.Records {
			if ends[i] > from {
				out.Records[i].Lines = lines[from:ends[i]:ends[i]]
			}
			from = ends[i]
		}
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d bytes after the entry", len(d.b))
	}
	if d.err != nil {
		return d.err
	}
	*e = out
	return nil
}

// decoder reads varints from b; the first problem sticks in err and every
// read after it returns zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errEntry, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail("cut short")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uint() uint64 { return next(d, binary.Uvarint) }

func (d *decoder) varint() int64 { return next(d, binary.Varint) }

// next reads one number with read (binary.Uvarint, binary.Varint).
func next[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.fail("cut short")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail("%d out of range", v)
		return 0
	}
	return int(v)
}

// count reads a number of things that take at least size bytes each: a
// count the rest cannot hold is refused before anything is allocated.
func (d *decoder) count(size int) int {
	v := d.uint()
	if d.err == nil && v > uint64(len(d.b)/size) {
		d.fail("%d items in %d bytes", v, len(d.b))
	}
	if d.err != nil {
		return 0
	}
	return int(v)
}

func (d *decoder) ranges() []Range {
	rs := d.appendRanges(nil)
	if d.err != nil || len(rs) == 0 {
		return nil
	}
	return rs
}

// appendRanges reads a list of ranges onto rs.
func (d *decoder) appendRanges(rs []Range) []Range {
	n := d.count(2)
	prev := 0
	for range n {
		s := prev + d.int()
		r := Range{Start: s, End: s + d.int()}
		rs = append(rs, r)
		prev = r.End
	}
	return rs
}
