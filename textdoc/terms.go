package textdoc

// Terminators returns how many lines end in "\n", "\r\n" and "\r". The counts
// are kept in the line index, so this is O(1) on any snapshot, also right
// after an edit: the edit engine asks for the dominant terminator before every
// batch, and a scan of a large document would cost more than the edit.
func (s *Snapshot) Terminators() (lf, crlf, cr int) {
	if s.root == nil {
		return 0, 0, 0
	}
	t := s.root.terms
	return t.lf, t.crlf, t.cr
}

// Dominant returns the terminator new lines should take so the document keeps
// its style: the most used one, "\n" when there is none; "\n" wins any tie,
// and "\r\n" wins a tie with "\r".
func (s *Snapshot) Dominant() string {
	lf, crlf, cr := s.Terminators()
	switch {
	case crlf > lf && crlf >= cr:
		return "\r\n"
	case cr > lf && cr > crlf:
		return "\r"
	}
	return "\n"
}
