//go:build unix && !linux

package confine

// openBeneath has no one-call form here: the walk opens folder by folder.
func openBeneath(int, string, int, uint32) (int, error) { return -1, errNoOpenat2 }
