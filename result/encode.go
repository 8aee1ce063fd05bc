package result

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// options are the one JSON encoding of agent-facing results, shared by the
// language server's answers and the CLI's --json so that a result carries the
// same fields on both:
//   - `omitempty` means what the struct tags were written for: a false, 0,
//     nil or empty field is left out (dryRun: false is not sent);
//   - a nil slice in a field without omitempty is [], never null (LSP clients
//     index what the spec calls an array);
//   - map keys are sorted, HTML is not escaped, and invalid UTF-8 in a
//     document's text becomes U+FFFD instead of failing the whole answer.
var options = json.JoinOptions(
	jsonv1.OmitEmptyWithLegacySemantics(true),
	json.Deterministic(true),
	jsontext.AllowInvalidUTF8(true),
)

// Marshal encodes a result compactly, as the language server sends it.
func Marshal(v any) ([]byte, error) {
	if lt, ok := v.(LargeText); ok {
		before, text, after, err := splitLarge(lt, options)
		if err != nil {
			return nil, err
		}
		// One buffer of about the answer's size: escapes take an eighth more
		// than the text in a source file with tabs; beyond, it grows once.
		b := make([]byte, 0, len(before)+len(text)+len(text)/8+len(after)+2)
		b = appendEscaped(append(append(b, before...), '"'), text)
		return append(append(b, '"'), after...), nil
	}
	b, err := json.Marshal(v, options)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b, nil
}

// Unmarshal decodes a result encoded by Marshal (a call's answer through
// the bridge) as encoding/json would, through the faster decoder of the
// encoding: a whole read's answer of 9 MB decodes in a third of the time.
func Unmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v, jsonv1.DefaultOptionsV1()); err != nil {
		return fmt.Errorf("decode %T: %w", v, err)
	}
	return nil
}

// MarshalApart is Marshal for a door that carries a result's long text
// apart from its JSON (the bridge, to a caller that reads attachments): the
// JSON of a LargeText result with its text member "", and the text, which
// then costs neither end its escaping. A result without one, with an empty
// one, or with one that is not UTF-8 (the JSON gives its bad bytes as
// U+FFFD) is encoded whole, with no text apart.
func MarshalApart(v any) (b []byte, text string, err error) {
	if lt, ok := v.(LargeText); ok {
		rest, _, text := lt.SplitText()
		if text != "" && utf8.ValidString(text) {
			b, err := json.Marshal(rest, options)
			if err != nil {
				return nil, "", fmt.Errorf("encode %T: %w", v, err)
			}
			return b, text, nil
		}
	}
	b, err = Marshal(v)
	return b, "", err
}

// UnmarshalApart decodes what MarshalApart encoded: the JSON b and the text
// that came apart from it ("" when none did) into v, which then holds what
// the whole JSON decodes to. A text apart for a result that has none, one
// whose member is not "" in the JSON, or one that is not UTF-8 is refused.
func UnmarshalApart(b []byte, text string, v any) error {
	if err := Unmarshal(b, v); err != nil || text == "" {
		return err
	}
	j, ok := v.(TextJoiner)
	if !ok {
		return fmt.Errorf("decode %T: a text apart from a result with no long text", v)
	}
	if _, name, in := j.SplitText(); in != "" {
		return fmt.Errorf("decode %T: its %s is both in the JSON and apart", v, name)
	}
	if !utf8.ValidString(text) {
		return fmt.Errorf("decode %T: the text apart is not UTF-8", v)
	}
	j.JoinText(text)
	return nil
}

// Write encodes a result straight to w, compact or indented, followed by a
// newline: the CLI's --json. Streaming skips the copy of a whole-file read
// that building the bytes first and then writing them would make; a
// LargeText result's text is also never copied into the encoder's buffer.
func Write(w io.Writer, v any, indent bool) error {
	opts := options
	if indent {
		opts = json.JoinOptions(options, jsontext.WithIndent("  "))
	}
	if lt, ok := v.(LargeText); ok {
		return writeLarge(w, lt, opts, "\n")
	}
	enc := jsontext.NewEncoder(w, opts)
	if err := json.MarshalEncode(enc, v, opts); err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	return nil
}

// LargeText is a result with a string member that may be megabytes (the
// content of a whole-file read). Write quotes that text straight to its
// writer, a chunk at a time, instead of handing it to the encoder, which
// copies it whole, grows its buffer to hold it all quoted, and quotes it a
// byte at a time: that made --json of a whole file 1.4× the time of its text.
type LargeText interface {
	// SplitText returns the result with the member emptied (encoded as
	// ""), the member's JSON name, and its text.
	SplitText() (rest any, name, text string)
}

// TextJoiner is a pointer to a LargeText result: it takes its text back
// (UnmarshalApart).
type TextJoiner interface {
	LargeText
	// JoinText sets the member SplitText empties.
	JoinText(text string)
}

// writeLarge writes what Write (end "\n") or Marshal (end "") would for v,
// byte for byte: the encoding of the rest with the text quoted in place of
// its empty member.
func writeLarge(w io.Writer, v LargeText, opts json.Options, end string) error {
	before, text, after, err := splitLarge(v, opts)
	if err != nil {
		return err
	}
	return writeQuoted(w, before, text, append(after, end...), quoteChunk)
}

// splitLarge encodes v with its text member left out: what comes before
// the text's quoted value, the text, and what comes after it.
func splitLarge(v LargeText, opts json.Options) (before []byte, text string, after []byte, err error) {
	rest, name, text := v.SplitText()
	b, err := json.Marshal(rest, opts)
	if err != nil {
		return nil, "", nil, fmt.Errorf("encode %T: %w", v, err)
	}
	at, err := memberValue(b, name)
	if err != nil {
		return nil, "", nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b[:at], text, b[at+len(`""`):], nil
}

// memberValue returns the offset in the JSON object b of the value of its
// top-level member name, which must be "". The object is decoded up to it
// (a match of the bytes could be inside a string or a nested object).
func memberValue(b []byte, name string) (int, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return 0, fmt.Errorf("not an object: %v", err)
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return 0, err
		}
		if tok.String() != name {
			if err := dec.SkipValue(); err != nil {
				return 0, err
			}
			continue
		}
		val, err := dec.ReadValue()
		if err != nil {
			return 0, err
		}
		if string(val) != `""` {
			return 0, fmt.Errorf("member %q is %s, not empty", name, val)
		}
		return int(dec.InputOffset()) - len(val), nil
	}
	return 0, fmt.Errorf("no member %q", name)
}
