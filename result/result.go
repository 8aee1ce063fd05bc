// Package result holds the agent-facing error kinds of PROTOCOL section 5 and
// an error type that carries one, so every layer (workspace, engines, handlers,
// CLI) can refuse with a kind and a message a model can act on; the one JSON
// encoding of answers; and the one strict decoding of the messages sightline
// judges for another program (DecodeJudged).
package result

import (
	"errors"
	"fmt"
)

// Kind is an agent-facing error kind.
type Kind string

const (
	UnreadRange       Kind = "unread_range"
	StaleRange        Kind = "stale_range"
	StaleRef          Kind = "stale_ref"
	AmbiguousRef      Kind = "ambiguous_ref"
	InvalidRef        Kind = "invalid_ref"
	Overlap           Kind = "overlap"
	FileChanged       Kind = "file_changed"
	VersionConflict   Kind = "version_conflict"
	NotFound          Kind = "not_found"
	Exists            Kind = "exists"
	Binary            Kind = "binary"
	TooLarge          Kind = "too_large"
	NoMatch           Kind = "no_match"
	AmbiguousMatch    Kind = "ambiguous_match"
	DramaticReduction Kind = "dramatic_reduction"
	Denied            Kind = "denied"
	ApprovalRefused   Kind = "approval_refused"
	InvalidEdit       Kind = "invalid_edit"
	// Unjudged: a door in front of another program (a hook's agent, the
	// editor behind the ACP door) could not read the change exactly as
	// that program will carry it out, so it refused it.
	Unjudged Kind = "unjudged"
	ReadOnly Kind = "read_only"
	Timeout  Kind = "timeout"
	IOError  Kind = "io_error"
	// Unrepresentable: new text holds a character the file's encoding
	// (Latin-1, Shift_JIS, ...) has no bytes for.
	Unrepresentable Kind = "unrepresentable"
	// InvalidParams is not an agent-facing kind: the LSP layer answers it with
	// JSON-RPC -32602 and the CLI with exit code 2.
	InvalidParams Kind = "invalid_params"
)

// Error is a refusal with a kind and a message a model can act on.
type Error struct {
	Kind    Kind
	Message string
	Err     error // the underlying cause, if any; never shown to the agent
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error of kind k with a formatted message.
func Errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Wrap makes an *Error of kind k whose cause is err.
func Wrap(k Kind, err error, message string) *Error {
	return &Error{Kind: k, Message: message, Err: err}
}

// KindOf returns the kind of the first *Error in err's chain, or "" for an
// internal fault.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

// Message returns the agent-facing message of err: the *Error's own message if
// it has one, else err's text.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
