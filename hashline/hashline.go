// Package hashline is the agent-facing line format of PROTOCOL section 2: a
// line shown as "{line}:{hash}|{content}", where hash is a 4-character base62
// digest of the line's content, and refs ("12:a3Kf") that name a line by
// number and hash. It also computes file hashes ("sha256:…"), and holds the
// edit engine of PROTOCOL section 6: DecodeEdits, Edit.Op, PlanEdits, and the
// plan's outputs (Render, UnifiedDiff, Plan.Changes).
//
// The package is pure: no LSP types, no I/O. Lines are split by package lines
// (the LSP rule), never here.
package hashline

import (
	"encoding/hex"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// alphabet is the base62 digit order of PROTOCOL section 2.
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// HashLen is the length of a line hash.
const HashLen = 4

// hashMod is 62^4: 24 CRC bits do not fit in four base62 digits, so the
// value is reduced modulo this.
const hashMod = 62 * 62 * 62 * 62

// Hash returns the line hash of content (the line without its terminator).
// The empty line hashes to "0000".
func Hash(content string) string {
	var b [HashLen]byte
	return string(appendHash(b[:0], content))
}

// Sum returns the 24 bits of content's CRC-32 that its line hash is made of:
// Hash is this value reduced modulo 62^4. Three bytes a line that compare
// the way refs do, with a little more resolution.
func Sum(content string) uint32 { return crc32.ChecksumIEEE(bytesOf(content)) & 0xFFFFFF }

// LineSum is the Sum of a document's 1-based line as an agent is shown it:
// a byte-order mark at the start of the first line is not content.
func LineSum(line int, content string) uint32 {
	if line == 1 {
		_, content = StripBOM(content)
	}
	return Sum(content)
}

// HashOfSum is the line hash of a line whose Sum is sum: Hash(c) ==
// HashOfSum(Sum(c)).
func HashOfSum(sum uint32) string {
	var b [HashLen]byte
	return string(appendHashSum(b[:0], sum))
}

// appendHash appends the 4 hash characters of content to dst.
func appendHash(dst []byte, content string) []byte {
	return appendHashSum(dst, crc32.ChecksumIEEE(bytesOf(content)))
}

func appendHashSum(dst []byte, sum uint32) []byte {
	v := (sum & 0xFFFFFF) % hashMod
	d3 := v % 62
	v /= 62
	d2 := v % 62
	v /= 62
	return append(dst, alphabet[v/62], alphabet[v%62], alphabet[d2], alphabet[d3])
}

// bytesOf views s as bytes without copying. Only for callees that neither
// keep nor modify the slice (checksums): a copy per line would dominate the
// cost of annotating a large file.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// FileHashOf is the file hash of a SHA-256 sum, for a caller that hashed a
// stream (sha256.New) rather than one slice.
func FileHashOf(sum []byte) string { return "sha256:" + hex.EncodeToString(sum) }

// AppendLine appends one annotated line, "{line}:{hash}|{content}", to dst,
// without a terminator: the caller decides how lines are joined.
func AppendLine(dst []byte, line int, content string) []byte {
	dst = strconv.AppendInt(dst, int64(line), 10)
	dst = append(dst, ':')
	dst = appendHash(dst, content)
	dst = append(dst, '|')
	return append(dst, content...)
}

// LineWriter appends consecutive annotated lines, each "{line}:{hash}|{content}\n",
// as a read renders a run of lines: the line number is counted in place (a
// digit update, not a formatting) and each line is written in place after
// one capacity check.
type LineWriter struct {
	digits [20]byte // the line number, right-aligned; 20 holds any int64
	i      int      // index of its first digit
}

// NewLineWriter starts at line first, which must be >= 0.
func NewLineWriter(first int) LineWriter {
	var w LineWriter
	w.i = len(w.digits)
	for {
		w.i--
		w.digits[w.i] = byte('0' + first%10)
		first /= 10
		if first == 0 {
			return w
		}
	}
}

// Append appends the current line, content annotated and ended by '\n',
// and moves on to the next line.
func (w *LineWriter) Append(dst []byte, content string) []byte {
	d := w.digits[w.i:]
	n := len(dst)
	need := len(d) + 1 + HashLen + 1 + len(content) + 1
	if cap(dst)-n < need {
		dst = slices.Grow(dst, need)
	}
	dst = dst[:n+need]
	out := dst[n:]
	k := copy(out, d)
	h := (crc32.ChecksumIEEE(bytesOf(content)) & 0xFFFFFF) % hashMod
	hi, lo := h/(62*62), h%(62*62)
	hd := out[k : k+2+HashLen : k+2+HashLen]
	hd[0] = ':'
	hd[1] = alphabet[hi/62]
	hd[2] = alphabet[hi%62]
	hd[3] = alphabet[lo/62]
	hd[4] = alphabet[lo%62]
	hd[5] = '|'
	k += 2 + HashLen
	k += copy(out[k:], content)
	out[k] = '\n'
	w.next()
	return dst
}

// next counts one line on.
func (w *LineWriter) next() {
	for j := len(w.digits) - 1; j >= w.i; j-- {
		if w.digits[j] != '9' {
			w.digits[j]++
			return
		}
		w.digits[j] = '0'
	}
	w.i--
	w.digits[w.i] = '1'
}

// Overhead is what AppendLine adds to the contents of lines start..end
// (1-based, inclusive): each line's number, ':', its hash and '|'. 0 when
// end < start.
func Overhead(start, end int) int {
	n := 0
	for lo, digits := 1, 1; lo <= end; lo, digits = lo*10, digits+1 {
		hi := min(end, lo*10-1)
		if from := max(start, lo); from <= hi {
			n += (hi - from + 1) * (digits + 1 + HashLen + 1)
		}
	}
	return n
}

// HasPrefix reports whether line starts with a hashline prefix: one or more
// ASCII digits, ':', four base62 characters, '|'. The edit path uses it to
// refuse new content that echoes the read format back.
func HasPrefix(line string) bool {
	i := 0
	for i < len(line) && isDigit(line[i]) {
		i++
	}
	if i == 0 || len(line) < i+2+HashLen || line[i] != ':' || line[i+1+HashLen] != '|' {
		return false
	}
	return validHash(line[i+1 : i+1+HashLen])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isBase62(c byte) bool {
	return isDigit(c) || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// validHash reports whether h is exactly HashLen base62 characters.
func validHash(h string) bool {
	if len(h) != HashLen {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !isBase62(h[i]) {
			return false
		}
	}
	return true
}

// EchoedLine reports the first line of content that is a read line copied
// whole, prefix included: "{line}:{hash}|{rest}" where hash is the hash of
// rest. Its index, or -1. A model that copies lines from a read into
// replacement text leaves such lines; by chance a written line has one with
// odds of one in 62^HashLen, so the write paths refuse it rather than write
// the prefix into the file.
func EchoedLine(content []string) int {
	for i, c := range content {
		if !HasPrefix(c) {
			continue
		}
		j := strings.IndexByte(c, ':')
		if Hash(c[j+2+HashLen:]) == c[j+1:j+1+HashLen] {
			return i
		}
	}
	return -1
}
