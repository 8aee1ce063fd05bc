package handlers

import "sync"

// health is what is wrong with the ledger's persistence, said in every
// answer: an agent told nothing keeps retrying what cannot be recorded.
type health struct {
	mu      sync.Mutex
	problem string // "" when the database works (or was not wanted)
	// ephemeral: this process ends after one call (the CLI), so a ledger
	// held in memory only is gone before the agent's next call.
	ephemeral bool
}

func (h *health) warning() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.problem
}

func (h *health) set(problem string) {
	h.mu.Lock()
	h.problem = problem
	h.mu.Unlock()
}

// forgetful reports whether what the ledger records now is lost before the
// agent's next call: no database, and a process that ends with this call.
func (h *health) forgetful() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.problem != "" && h.ephemeral
}
