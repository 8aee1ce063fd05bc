package result

import (
	"fmt"
	"io"

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
	b, err := json.Marshal(v, options)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b, nil
}

// MarshalIndent encodes a result like Marshal, indented for people (the
// CLI's --json).
func MarshalIndent(v any) ([]byte, error) {
	b, err := json.Marshal(v, options, jsontext.WithIndent("  "))
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b, nil
}

// Write encodes a result straight to w, compact or indented, followed by a
// newline: the CLI's --json. Streaming skips the copy of a whole-file read
// that building the bytes first and then writing them would make.
func Write(w io.Writer, v any, indent bool) error {
	opts := options
	if indent {
		opts = json.JoinOptions(options, jsontext.WithIndent("  "))
	}
	enc := jsontext.NewEncoder(w, opts)
	if err := json.MarshalEncode(enc, v, opts); err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	return nil
}
