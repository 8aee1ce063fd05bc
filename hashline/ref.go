package hashline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidRef is wrapped by every error of ParseRef.
var ErrInvalidRef = errors.New("invalid ref")

// Ref names a line by its 1-based number and the hash of its content, as
// shown by a read: "12:a3Kf".
type Ref struct {
	Line int
	Hash string
}

// String returns the ref as "{line}:{hash}".
func (r Ref) String() string {
	return strconv.Itoa(r.Line) + ":" + r.Hash
}

// ParseRef parses "{line}:{hash}". Surrounding whitespace is ignored, and so
// is a "|content" tail, since models often copy the whole annotated line.
// The line must be a decimal number >= 1 (no sign); the hash exactly 4
// characters of 0-9A-Za-z.
func ParseRef(s string) (Ref, error) {
	ref, _, _ := strings.Cut(strings.TrimSpace(s), "|")
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Ref{}, refError(s, "empty; want LINE:HASH, e.g. 12:a3Kf")
	}
	num, hash, ok := strings.Cut(ref, ":")
	if !ok {
		return Ref{}, refError(s, "missing ':'; want LINE:HASH, e.g. 12:a3Kf")
	}
	if num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return Ref{}, refError(s, "line must be a decimal number")
	}
	line, err := strconv.Atoi(num)
	if err != nil { // only a range error is left
		return Ref{}, refError(s, "line number out of range")
	}
	if line < 1 {
		return Ref{}, refError(s, "line numbers start at 1")
	}
	if !validHash(hash) {
		return Ref{}, refError(s, "hash must be 4 characters of 0-9A-Za-z")
	}
	return Ref{Line: line, Hash: hash}, nil
}

// refError names the input (shortened: it may be a whole pasted line) and
// what is wrong with it.
func refError(s, why string) error {
	const limit = 40
	if len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "") + "…"
	}
	return fmt.Errorf("%w %q: %s", ErrInvalidRef, s, why)
}
