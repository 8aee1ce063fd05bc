// Package hugepage allocates the large buffers a short-lived process fills
// once (a file's bytes) so that the kernel backs them with huge pages where
// it offers them on request (Linux's transparent huge pages in madvise
// mode, the common default). A page fault costs microseconds on a virtual
// machine: a 6 MB file read into 4 KB pages paid 1,500 of them.
//
// Only a caller that knows it is in such a process asks for them (huge):
// a long-lived process frees and reuses its memory, and huge pages in a
// heap the Go runtime returns to the system piece by piece can be filled
// again by the kernel (the reason the runtime itself stopped asking for
// them). A process that lives for one call never returns its memory, so
// for it they cost nothing.
package hugepage

// minSize is the capacity from which Bytes asks for huge pages: a smaller
// buffer holds at most one whole huge page.
const minSize = 4 << 20

// Bytes returns an empty slice of capacity n. A large one, when huge is
// set, is backed by huge pages, if the kernel has them to give when the
// buffer is first written.
func Bytes(n int, huge bool) []byte {
	if n < minSize || !huge {
		return make([]byte, 0, n)
	}
	return hugeBytes(n)
}
