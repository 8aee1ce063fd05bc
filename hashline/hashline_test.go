package hashline

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/lines"
)

type vector struct {
	Name  string `json:"name"`
	Line  string `json:"line"`
	CRC24 uint32 `json:"crc24"`
	Hash  string `json:"hash"`
}

// loadVectors reads testdata/hash_vectors.jsonl: hashes computed with
// Python's zlib.crc32, not with this package (the one-liner is in the file's
// header), so a shared misreading of the format cannot pass.
func loadVectors(t *testing.T) []vector {
	t.Helper()
	f, err := os.Open("testdata/hash_vectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sc.Text() == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		var v vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 15 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

func TestHashVectors(t *testing.T) {
	var reduced, padded bool
	for _, v := range loadVectors(t) {
		if got := Hash(v.Line); got != v.Hash {
			t.Errorf("%s: Hash(%q) = %s, want %s", v.Name, v.Line, got, v.Hash)
		}
		if got := HashBytes([]byte(v.Line)); got != v.Hash {
			t.Errorf("%s: HashBytes(%q) = %s, want %s", v.Name, v.Line, got, v.Hash)
		}
		reduced = reduced || v.CRC24 >= hashMod
		padded = padded || v.Hash[0] == '0' && v.Line != ""
	}
	if !reduced || !padded {
		t.Errorf("vectors must include a reduced value (%v) and a padded non-empty line (%v)", reduced, padded)
	}
}

func TestHashProtocolExample(t *testing.T) {
	got := string(Annotate(nil, "function hello() {\n  return \"world\";\n}\n", 1))
	want := "1:4qN7|function hello() {\n2:OcoM|  return \"world\";\n3:oHxE|}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFileHash(t *testing.T) {
	for _, s := range []string{"", "a\r\nb", "\ufeffx\n"} {
		sum := sha256.Sum256([]byte(s))
		want := "sha256:" + hex.EncodeToString(sum[:])
		if got := FileHash([]byte(s)); got != want {
			t.Errorf("FileHash(%q) = %s, want %s", s, got, want)
		}
		if got := FileHashString(s); got != want {
			t.Errorf("FileHashString(%q) = %s, want %s", s, got, want)
		}
	}
	// Known value: SHA-256 of the empty input.
	if got := FileHash(nil); got != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("FileHash(nil) = %s", got)
	}
}

func TestAnnotate(t *testing.T) {
	h := Hash
	cases := []struct {
		name  string
		text  string
		first int
		want  string
	}{
		{"empty", "", 1, ""},
		{"LF", "a\nb\n", 1, "1:" + h("a") + "|a\n2:" + h("b") + "|b\n"},
		{"no final newline", "a\nb", 1, "1:" + h("a") + "|a\n2:" + h("b") + "|b\n"},
		{"CRLF", "a\r\nb\r\n", 1, "1:" + h("a") + "|a\n2:" + h("b") + "|b\n"},
		{"bare CR", "a\rb\r", 1, "1:" + h("a") + "|a\n2:" + h("b") + "|b\n"},
		{"CR then LF lines", "\r\r\n\n", 1, "1:0000|\n2:0000|\n3:0000|\n"},
		{"LF then CR is two lines", "\n\r", 1, "1:0000|\n2:0000|\n"},
		{"only newline", "\n", 1, "1:0000|\n"},
		{"window numbering", "x\n", 101, "101:" + h("x") + "|x\n"},
		{"digit carry", "a\nb\nc\n", 98, "98:" + h("a") + "|a\n99:" + h("b") + "|b\n100:" + h("c") + "|c\n"},
		{"whitespace kept", "\tx  \n", 1, "1:" + h("\tx  ") + "|\tx  \n"},
		{"line zero", "a\n", 0, "0:" + h("a") + "|a\n"},
		{"negative", "a\nb", -1, "-1:" + h("a") + "|a\n0:" + h("b") + "|b\n"},
	}
	for _, c := range cases {
		if got := string(Annotate(nil, c.text, c.first)); got != c.want {
			t.Errorf("%s: Annotate(%q, %d) = %q, want %q", c.name, c.text, c.first, got, c.want)
		}
	}
	// dst is appended to, not overwritten.
	if got := string(Annotate([]byte("head\n"), "a", 1)); got != "head\n1:"+h("a")+"|a\n" {
		t.Errorf("append to dst: %q", got)
	}
	// Windows concatenate into the whole.
	text := "a\nb\r\nc\rd"
	whole := string(Annotate(nil, text, 1))
	parts := string(Annotate(Annotate(nil, "a\nb\r\n", 1), "c\rd", 3))
	if whole != parts {
		t.Errorf("windows %q != whole %q", parts, whole)
	}
}

// TestAnnotateParallel checks that the multi-goroutine path gives exactly
// the one-goroutine output, at chunk boundaries of every kind.
func TestAnnotateParallel(t *testing.T) {
	big := sourceLike(100_000) // > 2 chunks' worth
	texts := map[string]string{
		"LF":           big,
		"CRLF":         strings.ReplaceAll(big, "\n", "\r\n"),
		"CR":           strings.ReplaceAll(big, "\n", "\r"),
		"mixed":        strings.Replace(strings.ReplaceAll(big, "\n\n", "\r\n\r"), "\n", "\r", 1000),
		"no final EOL": strings.TrimSuffix(big, "\n") + "tail",
	}
	for name, text := range texts {
		if len(text) < 2*parallelChunk {
			t.Fatalf("%s: %d bytes, too small to go parallel", name, len(text))
		}
		want := annotate(nil, text, 7)
		got := Annotate(nil, text, 7)
		if string(got) != string(want) {
			t.Errorf("%s: parallel output differs from serial", name)
		}
		if n := strings.Count(string(got), "\n"); n != lines.Count(text) {
			t.Errorf("%s: %d lines, want %d", name, n, lines.Count(text))
		}
	}
	for _, n := range []int{1, 2, 3, 8} {
		for _, text := range []string{"a\nb\nc\n", "a\r\nb", "abc", "\n\n\n\n"} {
			chunks := splitChunks(text, n)
			if strings.Join(chunks, "") != text {
				t.Errorf("splitChunks(%q, %d) = %q loses text", text, n, chunks)
			}
			for _, c := range chunks[:len(chunks)-1] {
				if !strings.HasSuffix(c, "\n") || countLines(c) != lines.Count(c) {
					t.Errorf("splitChunks(%q, %d): chunk %q", text, n, c)
				}
			}
		}
	}
}

func TestAppendLine(t *testing.T) {
	got := string(AppendLine([]byte("x"), 12, "  return \"world\";"))
	if got != "x12:OcoM|  return \"world\";" {
		t.Errorf("AppendLine = %q", got)
	}
}

func TestHasPrefix(t *testing.T) {
	yes := []string{"1:4qN7|function hello() {", "12:0000|", "007:zzZZ|x", "3:oHxE|}"}
	no := []string{"", "1:4qN7", "1:4qN|x", "1:4qN7x|", ":4qN7|x", "a1:4qN7|x", " 1:4qN7|x",
		"1:4q-7|x", "-1:4qN7|x", "1;4qN7|x", "1:4qN7 |x", "12", "1:é4qN|"}
	for _, s := range yes {
		if !HasPrefix(s) {
			t.Errorf("HasPrefix(%q) = false", s)
		}
	}
	for _, s := range no {
		if HasPrefix(s) {
			t.Errorf("HasPrefix(%q) = true", s)
		}
	}
	// Every annotated line has the prefix.
	for _, l := range strings.SplitAfter(string(Annotate(nil, "a\n\nb", 1)), "\n") {
		if l != "" && !HasPrefix(l) {
			t.Errorf("annotated %q lacks prefix", l)
		}
	}
}

func TestParseRef(t *testing.T) {
	good := []struct {
		in   string
		want Ref
	}{
		{"12:a3Kf", Ref{12, "a3Kf"}},
		{"1:0000", Ref{1, "0000"}},
		{"  12:a3Kf\n", Ref{12, "a3Kf"}},
		{"12:a3Kf|  return x;", Ref{12, "a3Kf"}},
		{"12:a3Kf|", Ref{12, "a3Kf"}},
		{"12:a3Kf | tail", Ref{12, "a3Kf"}},
		{"\t3:oHxE|}\r\n", Ref{3, "oHxE"}},
		{"012:a3Kf", Ref{12, "a3Kf"}},
		{"9223372036854775807:ZZZZ", Ref{1<<63 - 1, "ZZZZ"}},
	}
	for _, c := range good {
		got, err := ParseRef(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseRef(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, why string }{
		{"", "empty"},
		{"   ", "empty"},
		{"|x", "empty"},
		{"12", "missing ':'"},
		{"12a3Kf", "missing ':'"},
		{":a3Kf", "line must be a decimal number"},
		{"+12:a3Kf", "line must be a decimal number"},
		{"-12:a3Kf", "line must be a decimal number"},
		{"1 2:a3Kf", "line must be a decimal number"},
		{"0x1:a3Kf", "line must be a decimal number"},
		{"١٢:a3Kf", "line must be a decimal number"},
		{"0:a3Kf", "line numbers start at 1"},
		{"00:a3Kf", "line numbers start at 1"},
		{"9223372036854775808:a3Kf", "line number out of range"},
		{"99999999999999999999999:a3Kf", "line number out of range"},
		{"12:a3K", "hash must be 4 characters of 0-9A-Za-z"},
		{"12:a3Kf5", "hash must be 4 characters of 0-9A-Za-z"},
		{"12:", "hash must be 4 characters of 0-9A-Za-z"},
		{"12:a3-f", "hash must be 4 characters of 0-9A-Za-z"},
		{"12:a3 f", "hash must be 4 characters of 0-9A-Za-z"},
		{"12:a3Kf:x", "hash must be 4 characters of 0-9A-Za-z"},
		{"12:éé", "hash must be 4 characters of 0-9A-Za-z"},
	}
	for _, c := range bad {
		_, err := ParseRef(c.in)
		if err == nil {
			t.Errorf("ParseRef(%q) succeeded", c.in)
			continue
		}
		if !errors.Is(err, ErrInvalidRef) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseRef(%q) = %v; want ErrInvalidRef saying %q", c.in, err, c.why)
		}
	}
	_, err := ParseRef("12:a3K")
	if want := `invalid ref "12:a3K": hash must be 4 characters of 0-9A-Za-z`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	_, err = ParseRef("12:" + strings.Repeat("é", 100))
	if err == nil || len(err.Error()) > 120 {
		t.Errorf("long input not shortened: %v", err)
	}
	if s := (Ref{12, "a3Kf"}).String(); s != "12:a3Kf" {
		t.Errorf("String() = %q", s)
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"12:a3Kf", " 1:0000|x ", "0:a3Kf", "-1:abcd", "12:a3K", "1:4qN7|function hello() {",
		"99999999999999999999:aaaa", "", ":", "|", "1:\x00\x00\x00\x00", "\u00a012:a3Kf\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidRef) {
				t.Fatalf("ParseRef(%q): error %v does not wrap ErrInvalidRef", s, err)
			}
			return
		}
		if r.Line < 1 || !validHash(r.Hash) {
			t.Fatalf("ParseRef(%q) = %#v: invalid ref accepted", s, r)
		}
		r2, err := ParseRef(r.String())
		if err != nil || r2 != r {
			t.Fatalf("ParseRef(%q) = %#v; String() = %q parses to %#v, %v", s, r, r.String(), r2, err)
		}
		if !HasPrefix(r.String() + "|") {
			t.Fatalf("%q + \"|\" is not a hashline prefix", r.String())
		}
	})
}

func FuzzAnnotate(f *testing.F) {
	for _, s := range []string{"", "a", "a\nb\n", "a\r\nb", "a\rb\r", "\r\r\n\n", "\n\r", "x\t y \r\n",
		"function hello() {\n  return \"world\";\n}\n", "é\n🎉\r\n日本", "1:4qN7|x\n"} {
		f.Add(s, 1)
	}
	f.Add("a\nb", 99)
	f.Fuzz(func(t *testing.T, text string, first int) {
		if first < 1 || first > 1<<40 {
			first = 1
		}
		out := string(Annotate(nil, text, first))
		want := lines.Split(text)
		got := strings.SplitAfter(out, "\n")
		if got[len(got)-1] != "" {
			t.Fatalf("output %q does not end with a newline", out)
		}
		got = got[:len(got)-1]
		if len(got) != lines.Count(text) || len(got) != len(want) {
			t.Fatalf("Annotate(%q): %d lines, want %d", text, len(got), lines.Count(text))
		}
		for i, l := range got {
			l = strings.TrimSuffix(l, "\n")
			if !HasPrefix(l) {
				t.Fatalf("line %d %q has no hashline prefix", i, l)
			}
			prefix, content, _ := strings.Cut(l, "|")
			if content != want[i].Content {
				t.Fatalf("line %d: content %q, want %q", i, content, want[i].Content)
			}
			r, err := ParseRef(prefix)
			if err != nil || r.Line != first+i || r.Hash != Hash(content) {
				t.Fatalf("line %d: prefix %q parses to %v, %v; want %d:%s", i, prefix, r, err, first+i, Hash(content))
			}
		}
	})
}

// TestOverhead: Overhead is what AppendLine adds, over ranges that cross
// the widths of line numbers.
func TestOverhead(t *testing.T) {
	for _, r := range [][2]int{{1, 0}, {5, 4}, {1, 1}, {1, 9}, {1, 10}, {9, 11}, {95, 1005}, {99999, 100001}, {1, 3000}} {
		want := 0
		for i := r[0]; i <= r[1]; i++ {
			want += len(AppendLine(nil, i, "x")) - 1
		}
		if got := Overhead(r[0], r[1]); got != want {
			t.Errorf("Overhead(%d, %d) = %d, AppendLine adds %d", r[0], r[1], got, want)
		}
	}
}

// HashBytes is Hash for a byte slice.
func HashBytes(content []byte) string {
	var b [HashLen]byte
	return string(appendHashSum(b[:0], crc32.ChecksumIEEE(content)))
}

// A byte-order mark is not content of the first line, and is of any other.
func TestLineSumLeavesOutTheFirstLinesBOM(t *testing.T) {
	if LineSum(1, "\ufeffpackage x") != Sum("package x") || LineSum(2, "\ufeffx") != Sum("\ufeffx") || LineSum(1, "x") != Sum("x") {
		t.Fatal("LineSum does not sum a line as it is shown")
	}
}

// FileHash returns "sha256:" + the hex SHA-256 of b.
func FileHash(b []byte) string {
	sum := sha256.Sum256(b)
	return FileHashOf(sum[:])
}

// FileHashString is FileHash for text held as a string (no copy).
func FileHashString(s string) string {
	return FileHash(bytesOf(s))
}
