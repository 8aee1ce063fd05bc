package workspace

import "testing"

// newWS is New for a test: the roots' handles are released when the test
// ends, before its temp folders are removed (Windows cannot remove a
// folder a handle holds open, except with POSIX delete semantics).
func newWS(t testing.TB, roots []string, opts Options) *Workspace {
	w := New(roots, opts)
	t.Cleanup(w.Close)
	return w
}
