//go:build !linux

package hugepage

// hugeBytes is make where huge pages are not asked for per buffer.
func hugeBytes(n int) []byte { return make([]byte, 0, n) }
