package engine

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
)

// countingReader counts the bytes a reader was asked for.
type countingReader struct {
	r     io.Reader
	asked int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.asked += len(p)
	return c.r.Read(p)
}

// A range read whose stat is cached reads the file only up to its last
// line, and near the start of a large file it reads (and touches the
// memory of) a few kilobytes, not a quarter megabyte: the buffer grows as
// the scan goes on. It still finds lines far down, and a line longer than
// the buffer.
func TestRangeScanReadsWhatItNeeds(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 100_000; i++ {
		fmt.Fprintf(&b, "line %d of the file, with some text after it\n", i)
	}
	long := strings.Repeat("y", 700<<10)
	b.WriteString(long + "\nlast\n")
	text := b.String()

	r := &countingReader{r: strings.NewReader(text)}
	s := scan{want: ledger.Range{Start: 100, End: 109}, maxBytes: 1 << 20}
	if err := s.run(r, int64(len(text))); err != nil {
		t.Fatal(err)
	}
	if got := s.taken(); len(got) != 10 || got[0] != "line 100 of the file, with some text after it" {
		t.Fatalf("lines: %q", got)
	}
	if r.asked > 32<<10 {
		t.Errorf("read %d bytes for lines 100-109 (about 5 KB in)", r.asked)
	}

	s = scan{want: ledger.Range{Start: 99_999, End: 100_002}, maxBytes: 4 << 20}
	if err := s.run(strings.NewReader(text), int64(len(text))); err != nil {
		t.Fatal(err)
	}
	if got := s.taken(); len(got) != 4 || got[0] != "line 99999 of the file, with some text after it" || got[2] != long || got[3] != "last" {
		t.Fatalf("far lines: %d, %.40q", len(got), got)
	}
}

// taken returns the lines the scan took.
func (s *scan) taken() []string {
	var got []string
	for j := range s.ends {
		got = append(got, s.line(j))
	}
	return got
}
