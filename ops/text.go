package ops

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// The pieces of text several operations share, worded once.

// Outside is a value from outside sightline (a session id, which an ACP
// agent picks; a path; an agent's name; a message that echoes a caller's
// input) as an answer's text shows it: as it is, or quoted with Go's
// escapes ("a\nfake row") when it holds a character that would break the
// text's lines or the terminal showing them: a control character (a line
// break, a tab, an ANSI escape), a line or paragraph separator, any other
// character that is not printable, or bytes that are not UTF-8.
func Outside(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// printf is how an operation's text writes a line: its own words are the
// format, and every operand that is a string is shown by Outside, so that
// no value is written as it came by mistake. File content (a read's
// lines, a diff, lines handed over) is what the agent works on, and is
// written as it is, with b.WriteString.
func printf(b *strings.Builder, format string, args ...any) {
	for i, a := range args {
		if v := reflect.ValueOf(a); v.Kind() == reflect.String {
			args[i] = Outside(v.String())
		}
	}
	fmt.Fprintf(b, format, args...)
}

// line writes a message (the answer's, a notice) as a line of its own.
func line(b *strings.Builder, msg string) {
	b.WriteString(Outside(msg))
	b.WriteByte('\n')
}

// WarningLine is a warning as every door shows it.
func WarningLine(w string) string { return "warning: " + Outside(w) + "\n" }

// RefusalLine is a refusal's kind and message as every door shows them.
func RefusalLine(o engine.Outcome) string {
	return Outside(string(o.Error)) + ": " + Outside(o.Message) + "\n"
}

// freshRefs are the current lines a stale_ref or ambiguous_ref refusal
// returned (they count as read).
func freshRefs(b *strings.Builder, refs []string) {
	if len(refs) == 0 {
		return
	}
	b.WriteString("Fresh refs (now counted as read; use them to retry):\n")
	for _, l := range refs {
		b.WriteString(l + "\n")
	}
}

// expanded are the lines a guard refusal returned (they count as read).
func expanded(b *strings.Builder, g engine.GuardRefusal) {
	if g.Expanded != "" {
		printf(b, "expanded (%s, now counted as read):\n", ledger.List(g.ExpandedRanges))
		b.WriteString(g.Expanded)
	}
}

// as is the caller of a tool call: the door's (its session the default of
// a call that names none, its agent, whether it asks for the text), in the
// call's own session when it names one.
func as(door engine.Caller, session string) engine.Caller {
	if session != "" {
		door.Session = session
	}
	return door
}

// toolDoc turns a tool path into a document; a missing path is invalid.
func toolDoc(path string, key func(string) workspace.Key) (engine.TextDocument, error) {
	if strings.TrimSpace(path) == "" {
		return engine.TextDocument{}, invalid("path is required: a file path relative to the workspace root.")
	}
	return engine.TextDocument{URI: string(key(path))}, nil
}

func one(uri string) []string { return []string{uri} }

const (
	pathHelp    = "File path relative to the workspace root (an absolute path inside the workspace also works)."
	sessionHelp = `Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else "default") is right unless you were told otherwise.`
	dryRunHelp  = "Validate and show the diff; change nothing and record nothing."
)
