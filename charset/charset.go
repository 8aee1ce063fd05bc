// Package charset is how a file's text is stored as bytes: UTF-8 (the zero
// Charset, kept as it is) or a legacy encoding (Latin-1, windows-1252,
// Shift_JIS, GBK, UTF-16, ...), decoded to text when read and encoded back
// when written. A file is taken to be in an encoding only when it decodes
// strictly and encodes back to exactly its own bytes, so a write changes no
// byte it was not asked to change.
package charset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Charset is a text encoding. The zero value is UTF-8.
type Charset struct {
	name string            // as messages spell it; "" for UTF-8
	enc  encoding.Encoding // nil for UTF-8
}

// UTF8 is the zero Charset: files are their text's bytes.
var UTF8 = Charset{}

// Name is the encoding's name as the settings spell it ("utf-8",
// "ISO-8859-1", "windows-1252", "Shift_JIS", "UTF-16LE", ...).
func (c Charset) Name() string {
	if c.enc == nil {
		return "utf-8"
	}
	return c.name
}

// IsUTF8 reports whether files in c are their text's bytes.
func (c Charset) IsUTF8() bool { return c.enc == nil }

// Lookup returns the encoding a name means: an .editorconfig charset
// (latin1, utf-8, utf-8-bom, utf-16le, utf-16be), an IANA name or alias
// (ISO-8859-1, Shift_JIS, GBK, EUC-JP, ...), or a WHATWG label (cp1252,
// sjis, ...). UTF-16 must say its byte order: a file's byte-order mark
// finds it by itself.
func Lookup(name string) (Charset, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "utf-8", "utf8", "utf-8-bom":
		return UTF8, nil
	case "latin1":
		return Charset{"ISO-8859-1", charmap.ISO8859_1}, nil
	case "utf-16le":
		return utf16LE, nil
	case "utf-16be":
		return utf16BE, nil
	case "utf-16", "utf-32", "utf-32le", "utf-32be", "":
		return Charset{}, fmt.Errorf("encoding %q is not supported: name utf-16le or utf-16be (a byte-order mark is found without naming it)", name)
	}
	e, err := ianaindex.IANA.Encoding(n)
	if err != nil || e == nil {
		e, err = htmlindex.Get(n)
	}
	if err == nil && e != nil {
		if e == unicode.UTF8 {
			return UTF8, nil
		}
		canon := canonical(e, name)
		if stateful(canon) {
			return Charset{}, fmt.Errorf("encoding %s is stateful (a line's bytes depend on the lines before it), so sightline could not keep the bytes of lines an edit does not change: it is not supported", canon)
		}
		return Charset{canon, e}, nil
	}
	return Charset{}, fmt.Errorf("unknown encoding %q: use an IANA name such as ISO-8859-1, windows-1252, Shift_JIS, GBK, EUC-KR, or utf-16le", name)
}

// stateful reports whether an encoding shifts between character sets with
// escape sequences that hold across lines.
func stateful(canon string) bool {
	n := strings.ToUpper(canon)
	return strings.HasPrefix(n, "ISO-2022") || strings.HasPrefix(n, "HZ") || n == "UTF-7"
}

// canonical is an encoding's preferred MIME name, else its IANA name.
func canonical(e encoding.Encoding, name string) string {
	for _, x := range []*ianaindex.Index{ianaindex.MIME, ianaindex.IANA} {
		if n, err := x.Name(e); err == nil && n != "" {
			return n
		}
	}
	return name
}

// The UTF-16 encodings keep a byte-order mark in the text as U+FEFF (as a
// UTF-8 file's mark is kept), so line 1 treats it as every mark is treated
// and a write puts back exactly the bytes that were there.
var (
	utf16LE = Charset{"UTF-16LE", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)}
	utf16BE = Charset{"UTF-16BE", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)}
)

// ByBOM returns the encoding a byte-order mark at the start of data names
// (UTF-8's, or UTF-16's).
func ByBOM(data []byte) (Charset, bool) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return UTF8, true
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return utf16LE, true
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return utf16BE, true
	}
	return Charset{}, false
}

// Decode returns data's text when data is strictly in c: every byte
// sequence is c's, no character is NUL, and encoding the text again gives
// data back byte for byte (encodings with two byte sequences for one
// character, or bytes they do not define, fail this).
func (c Charset) Decode(data []byte) (string, bool) {
	if c.enc == nil {
		if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
			return "", false
		}
		return string(data), true
	}
	text, err := c.enc.NewDecoder().Bytes(data)
	if err != nil || bytes.IndexByte(text, 0) >= 0 || !utf8.Valid(text) {
		return "", false
	}
	// Encoded again into a comparison with data, not into a copy of it.
	same := &prefixOf{rest: data}
	tw := transform.NewWriter(same, c.enc.NewEncoder())
	if _, err := tw.Write(text); err != nil {
		return "", false
	}
	if err := tw.Close(); err != nil || len(same.rest) != 0 {
		return "", false
	}
	// text is ours and never written again: the string aliases it.
	return unsafe.String(unsafe.SliceData(text), len(text)), true
}

// prefixOf is a writer that fails as soon as what it is given is not the
// next bytes of rest.
type prefixOf struct{ rest []byte }

var errDiffers = errors.New("differs")

func (p *prefixOf) Write(b []byte) (int, error) {
	if !bytes.HasPrefix(p.rest, b) {
		return 0, errDiffers
	}
	p.rest = p.rest[len(b):]
	return len(b), nil
}

// Unrepresentable returns the first character of s that c cannot encode
// (or encodes as bytes that read back as another character), and its byte
// offset in s; ok is false when c encodes all of s and it reads back as s.
func (c Charset) Unrepresentable(s string) (r rune, at int, ok bool) {
	if c.enc == nil || c.readsBack(s) {
		return 0, 0, false
	}
	for i, r := range s {
		if !c.readsBack(string(r)) {
			return r, i, true
		}
	}
	return 0, 0, false // the whole failed but no character alone: not expected
}

func (c Charset) readsBack(s string) bool {
	b, err := c.enc.NewEncoder().String(s)
	if err != nil {
		return false
	}
	back, err := c.enc.NewDecoder().String(b)
	return err == nil && back == s
}

// ErrUnrepresentable is what Bytes' WriteTo fails with when the text holds
// a character the encoding lacks. Writes check their new text first
// (Unrepresentable), so it is a fault, never an answer.
var ErrUnrepresentable = errors.New("text holds a character the file's encoding cannot represent")

// Bytes returns text (a snapshot, or anything that writes its UTF-8 text)
// as c's bytes: text itself for UTF-8, else an encoder in front of it.
func (c Charset) Bytes(text io.WriterTo) io.WriterTo {
	if c.enc == nil {
		return text
	}
	return encoded{text, c.enc}
}

type encoded struct {
	text io.WriterTo
	enc  encoding.Encoding
}

func (e encoded) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	tw := transform.NewWriter(cw, e.enc.NewEncoder())
	if _, err := e.text.WriteTo(tw); err != nil {
		return cw.n, encodeErr(err)
	}
	if err := tw.Close(); err != nil {
		return cw.n, encodeErr(err)
	}
	return cw.n, nil
}

// encodeErr tells an encoder's refusal of a character from the writer's
// own failure (a full disk), which passes through unchanged.
func encodeErr(err error) error {
	var we *writeErr
	if errors.As(err, &we) {
		return we.err
	}
	return fmt.Errorf("%w: %v", ErrUnrepresentable, err)
}

type countWriter struct {
	w io.Writer
	n int64
}

type writeErr struct{ err error }

func (e *writeErr) Error() string { return e.err.Error() }
func (e *writeErr) Unwrap() error { return e.err }

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		return n, &writeErr{err}
	}
	return n, nil
}

// Detect finds the encoding of a file's bytes and returns its text:
//  1. a byte-order mark (UTF-8's or UTF-16's) names its encoding;
//  2. declared (the file's .editorconfig charset), when not UTF-8;
//  3. UTF-8;
//  4. each of fallbacks in order (the encodings setting).
//
// The first that decodes data strictly (Decode) wins. ok is false when
// none does: the file is binary, or text in an encoding nobody declared.
// Nothing is guessed beyond that: many single-byte encodings decode any
// bytes, so only the user can say which one a file is in.
func Detect(data []byte, declared Charset, fallbacks []Charset) (Charset, string, bool) {
	try := func(c Charset) (string, bool) { return c.Decode(data) }
	if c, ok := ByBOM(data); ok {
		if text, ok := try(c); ok {
			return c, text, true
		}
	}
	if !declared.IsUTF8() {
		if text, ok := try(declared); ok {
			return declared, text, true
		}
	}
	if text, ok := try(UTF8); ok {
		return UTF8, text, true
	}
	for _, c := range fallbacks {
		if text, ok := try(c); ok {
			return c, text, true
		}
	}
	return Charset{}, "", false
}
