package engine

import (
	"fmt"
	"strings"
	"sync"
)

// health is what is wrong with the ledger's persistence, said in every
// answer: an agent told nothing keeps retrying what cannot be recorded.
type health struct {
	mu      sync.Mutex
	problem string // "" when the database works (or was not wanted)
	// notice is said once, in the next answer: what was done to open the
	// database (a corrupt one moved aside and recreated).
	notice string
	// ephemeral: this process ends after one call (the CLI), so a ledger
	// held in memory only is gone before the agent's next call.
	ephemeral bool
}

// warnings returns the problem, and the notice the first time.
func (h *health) warnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	if h.problem != "" {
		out = append(out, h.problem)
	}
	if h.notice != "" {
		out = append(out, h.notice)
		h.notice = ""
	}
	return out
}

// summary is what the user is told at startup, without consuming the notice.
func (h *health) summary() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.TrimSpace(h.problem + " " + h.notice)
}

// forgetful reports whether what the ledger records now is lost before the
// agent's next call: no database, and a process that ends with this call.
func (h *health) forgetful() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.problem != "" && h.ephemeral
}

// PersistenceProblem says what is wrong with the ledger's database, or what
// was done to it at startup ("" when all is well): the language server shows
// it to the user once.
func (e *Env) PersistenceProblem() string { return e.health.summary() }

// persistenceWarnings are the warnings of every answer about the database:
// unavailable since startup, recovered at startup (once), or failing to save
// now.
func (e *Env) persistenceWarnings() []string {
	out := e.health.warnings()
	if e.db != nil {
		if r := e.db.Replaced(); r != "" {
			out = append(out, r)
		}
		if err := e.db.Err(); err != nil {
			out = append(out, fmt.Sprintf("Saving the ledger to its database failed (%v): what was read since is kept in memory only until a save succeeds.", err))
		}
	}
	return out
}
