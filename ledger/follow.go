package ledger

// Step is one change of a document the ledger follows, numbered (Seq) in
// the order the documents changed. Changes are 1-based and follow one
// another (each relative to the text the one before left).
type Step struct {
	Seq      int64
	Doc      DocKey
	FromRev  Rev
	ToRev    Rev
	First    bool // seen for the first time: NewTotal lines at ToRev
	Replaced bool // the old text is unknown: nothing maps across
	Changes  []Change
	Author   string // the session that made the change, "" for anyone else
	NewTotal int
}

// Followed is the number of the last step applied.
func (l *Ledger) Followed() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.followed
}

// Follow applies steps in the order of their numbers, each once: a step
// numbered at or below the last one applied is skipped (another caller
// applied it). A run starts no later than the step after the last one
// followed when the run was taken (Followed, then the changes after it), so
// no step is skipped. Callers need no lock of their own to keep the order,
// and the ledger's lock is released before it reports what changed. It
// returns the number of the last step applied.
func (l *Ledger) Follow(steps []Step) int64 {
	l.mu.Lock()
	var dirty dirtyList
	for _, s := range steps {
		if s.Seq <= l.followed {
			continue
		}
		l.followed = s.Seq
		switch {
		case s.First || len(s.Changes) == 0 && !s.Replaced:
			l.setTotal(s.Doc, s.ToRev, s.NewTotal, &dirty)
		case s.Replaced:
			l.replaceDoc(s.Doc, s.ToRev, s.NewTotal, &dirty)
		default:
			// Each change's total follows from the final one and the later
			// deltas.
			totals := make([]int, len(s.Changes))
			t := s.NewTotal
			for i := len(s.Changes) - 1; i >= 0; i-- {
				totals[i] = t
				t -= s.Changes[i].New - s.Changes[i].Old
			}
			from := s.FromRev
			for i, c := range s.Changes {
				l.applyChange(s.Doc, from, s.ToRev, c, s.Author, totals[i], &dirty)
				from = s.ToRev
			}
		}
	}
	n := l.followed
	l.unlockAndNotify(dirty)
	return n
}
