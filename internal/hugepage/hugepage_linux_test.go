package hugepage_test

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/sightline-lsp/sightline/internal/hugepage"
)

// minorFaults is the calling thread's count of minor page faults.
func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// A buffer of a large file's size, filled once, faults in huge pages
// where the kernel offers them on request: on a virtual machine each 4 KB
// fault costs microseconds, so a 6 MB file read into ordinary pages paid
// 1,500 of them (about 20 ms), as much as the rest of a one-line edit.
func TestBytesFaultsInHugePages(t *testing.T) {
	thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(thp), "[never]") {
		t.Skip("transparent huge pages are off on this system")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	hugepage.Enable()
	const n = 16 << 20
	before := minorFaults(t)
	b := hugepage.Bytes(n)[:n]
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	faults := minorFaults(t) - before
	t.Logf("%d minor faults filling %d MB", faults, n>>20)
	if pages := int64(n / 4096); faults > pages/4 {
		t.Fatalf("filling %d MB took %d page faults, about one per 4 KB page (%d): the buffer is not in huge pages", n>>20, faults, pages)
	}
}
