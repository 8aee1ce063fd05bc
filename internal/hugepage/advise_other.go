//go:build !linux

package hugepage

// huge is make where huge pages are not asked for per buffer.
func huge(n int) []byte { return make([]byte, 0, n) }
