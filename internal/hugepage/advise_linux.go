package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeSize is the size of a huge page on x86-64 and arm64 with 4 KB pages.
const hugeSize = 2 << 20

// hugeBytes returns an empty slice of capacity n that starts on a huge page
// boundary, in an allocation that covers its last huge page whole, with
// huge pages asked for all of it. The allocation is fresh memory that make
// does not write, so the first write faults it in whole huge pages; what
// it has beyond the slice is address space, never written. Where the
// kernel refuses, the buffer keeps ordinary pages.
func hugeBytes(n int) []byte {
	span := (n + hugeSize - 1) &^ (hugeSize - 1)
	b := make([]byte, span+hugeSize)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((p+hugeSize-1)&^(hugeSize-1) - p)
	b = b[off : off+span]
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b[:0:n]
}
