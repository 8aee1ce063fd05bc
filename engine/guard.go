package engine

import (
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// GuardRefusal is what a write refused by the guard answers besides its
// message: the exact ranges, and with auto-expand the missing lines that fit
// the read budget (annotated; those, and only those, now count as read).
type GuardRefusal struct {
	Unread         []ledger.Range `json:"unread,omitempty"`
	Stale          []ledger.Range `json:"stale,omitempty"`
	Expanded       string         `json:"expanded,omitempty"`
	ExpandedRanges []ledger.Range `json:"expandedRanges,omitempty"`
}

// Verdict is what the edit guard said, for the answer and the audit.
type Verdict struct {
	// Name is "" (not asked: guard off, nothing targeted), "clear",
	// "warned", "blocked", or "expanded" (blocked, missing lines returned).
	Name     string
	Warnings []string
	// Err is the refusal when the write must not proceed.
	Err error
	GuardRefusal
}

// guard is the edit guard of PROTOCOL section 4, shared by every write path
// (hashline edits, write modes, edit blocks): target lines not read, or
// changed since read, block the write (enforce) or warn (warn); other lines
// changed since read are a warning. With auto-expand the missing lines come
// back annotated, as many as the read budget allows, and those count as read,
// so a retry can succeed at once when they all fit.
func (e *Env) guard(session, agent string, d workspace.Doc, targets []ledger.Range) Verdict {
	return e.guardExpand(session, agent, d, targets, true)
}

// guardExpand is the guard; expand false hands no missing line back, for a
// refusal whose answer cannot carry them to the model (they would count as
// read without having been shown).
func (e *Env) guardExpand(session, agent string, d workspace.Doc, targets []ledger.Range, expand bool) Verdict {
	cfg := e.Config()
	if cfg.Guard == "off" || len(targets) == 0 {
		return Verdict{}
	}
	dec := e.Ledger.Check(session, ledger.DocKey(d.Key), targets)
	v := Verdict{Name: "clear"}
	for _, r := range dec.OtherStale {
		v.Warnings = append(v.Warnings, fmt.Sprintf("%s changed since you read %s (not part of this edit).", r.Word(), r.It()))
	}
	if dec.Clear() {
		return v
	}
	if cfg.Guard == "warn" {
		v.Name = "warned"
		for _, r := range dec.Unread {
			v.Warnings = append(v.Warnings, fmt.Sprintf("%s %s not read before this edit.", r.Word(), r.Was()))
		}
		for _, r := range dec.Stale {
			v.Warnings = append(v.Warnings, fmt.Sprintf("%s changed since you read %s and %s edited anyway.", r.Word(), r.It(), r.Was()))
		}
		return v
	}
	v.Name, v.Unread, v.Stale = "blocked", dec.Unread, dec.Stale
	var msgs []string
	kind := result.UnreadRange
	for _, r := range dec.Unread {
		msgs = append(msgs, fmt.Sprintf("%s %s not read. Read %s first.", r.Word(), r.Was(), thatRange(r)))
	}
	for _, r := range dec.Stale {
		msgs = append(msgs, fmt.Sprintf("%s changed since you read %s. Read %s again.", r.Word(), r.It(), r.It()))
	}
	if len(dec.Unread) == 0 {
		kind = result.StaleRange
	}
	if cfg.AutoExpand && expand {
		var missing ledger.RangeSet
		missing.AddAll(dec.Unread)
		missing.AddAll(dec.Stale)
		if content, got := e.expand(session, agent, d, missing.Ranges()); len(got) > 0 {
			v.Name, v.Expanded, v.ExpandedRanges = "expanded", content, got
			if e.health.forgetful() {
				msgs = append(msgs, forgottenMessage(got))
			} else {
				msgs = append(msgs, expandedMessage(missing, got))
			}
		}
	}
	if v.Name == "blocked" && e.health.forgetful() {
		msgs = append(msgs, "Reads are not remembered from one command to the next while the ledger database is unavailable (see warnings): make the state folder usable, or set SIGHTLINE_STATE_DIR to a writable folder.")
	}
	v.Err = result.Errorf(kind, "%s", strings.Join(msgs, " "))
	return v
}

// expandedMessage says which missing lines auto-expand returned and which it
// could not (the read budget ran out): the message must never claim a line
// counts as read that the answer did not show.
func expandedMessage(missing ledger.RangeSet, got []ledger.Range) string {
	rest := missing.Clone()
	rest.RemoveAll(got)
	shown := make([]string, len(got))
	for i, r := range got {
		shown[i] = r.Word()
	}
	if rest.IsEmpty() {
		them := "them"
		if countVerb(got) == "counts" {
			them = "it"
		}
		return fmt.Sprintf("%s %s in expanded below and now %s as read: check %s and retry the edit.", strings.Join(shown, ", "), isAre(got), countVerb(got), them)
	}
	left := rest.Ranges()
	unshown := make([]string, len(left))
	for i, r := range left {
		unshown[i] = r.Word()
	}
	return fmt.Sprintf("%s %s in expanded below and now %s as read. %s did not fit in the read budget and must still be read before the edit can succeed.",
		strings.Join(shown, ", "), isAre(got), countVerb(got), strings.Join(unshown, ", "))
}

// forgottenMessage is the auto-expand message when nothing this process
// records reaches the agent's next call (the CLI without its database): the
// lines are shown, but a retry cannot find them read, and the message must
// say so rather than invite a retry that is refused again.
func forgottenMessage(got []ledger.Range) string {
	shown := make([]string, len(got))
	for i, r := range got {
		shown[i] = r.Word()
	}
	return fmt.Sprintf("%s %s in expanded below, but the ledger database is unavailable (see warnings), so this command cannot record them for the next one: a retry would be refused again. Make the state folder usable (or set SIGHTLINE_STATE_DIR to a writable folder), then read the lines and retry.",
		strings.Join(shown, ", "), isAre(got))
}

func isAre(rs []ledger.Range) string {
	if len(rs) == 1 && rs[0].Start == rs[0].End {
		return "is"
	}
	return "are"
}

// countVerb agrees with what was returned: "Line 5 ... counts", "Lines 5-9
// ... count".
func countVerb(got []ledger.Range) string {
	if len(got) == 1 && got[0].Start == got[0].End {
		return "counts"
	}
	return "count"
}
