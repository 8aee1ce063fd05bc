package hugepage_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sightline-lsp/sightline/internal/hugepage"
)

// fillSize is the buffer the test fills: 4,096 pages of 4 KB.
const fillSize = 16 << 20

// A buffer of a large file's size, filled once, faults in huge pages
// where the kernel offers them on request: on a virtual machine each 4 KB
// fault costs microseconds, so a 6 MB file read into ordinary pages paid
// 1,500 of them (about 20 ms), as much as the rest of a one-line edit. It
// is measured in a process of its own that never collects, as a one-call
// command runs: memory fresh from the system.
func TestBytesFaultsInHugePages(t *testing.T) {
	if os.Getenv("HUGEPAGE_FILL") == "1" {
		fill()
		return
	}
	thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(thp), "[never]") {
		t.Skip("transparent huge pages are off on this system")
	}
	if os.Getpagesize() != 4096 {
		t.Skip("pages are not 4 KB here: huge pages are not 2 MB")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBytesFaultsInHugePages$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HUGEPAGE_FILL=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var faults int64 = -1
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "faults "); ok {
			faults, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if faults < 0 {
		t.Fatalf("no count of faults in\n%s", out)
	}
	t.Logf("%d minor faults filling %d MB", faults, fillSize>>20)
	// A huge page the kernel cannot give at once (memory too fragmented)
	// falls back to 4 KB pages: half of them is the bound, not none.
	if pages := int64(fillSize / 4096); faults > pages/2 {
		t.Fatalf("filling %d MB took %d page faults, about one per 4 KB page (%d): the buffer is not in huge pages", fillSize>>20, faults, pages)
	}
}

// fill fills a buffer from Bytes and prints the page faults it took.
func fill() {
	debug.SetGCPercent(-1)
	runtime.LockOSThread()
	before := minorFaults()
	b := hugepage.Bytes(fillSize, true)[:fillSize]
	for i := 0; i < fillSize; i += 4096 {
		b[i] = 1
	}
	fmt.Printf("faults %d\n", minorFaults()-before)
}

// minorFaults is the calling thread's count of minor page faults.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		panic(err)
	}
	return ru.Minflt
}
