package bridge

import (
	"context"
	"testing"
	"unsafe"
)

// A caller that lives for one call (the CLI) reads a large answer into huge
// pages (package hugepage: its buffers start on a huge page): its frame of
// 8 MB faulted in 2,000 pages of 4 KB, a third of what a whole read through
// the bridge cost it. Other callers read it into ordinary memory.
func TestOneCallCallerReadsALargeAnswerIntoHugePages(t *testing.T) {
	answer := bigAnswer(8 << 20)
	sock := rawServer(t, answer)
	ctx := context.Background()
	c, err := DialWith(ctx, sock, CallerOptions{OneCall: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 2 {
		a, err := c.CallUnprobed(ctx, MethodStatus, nil)
		if err != nil {
			t.Fatal(err)
		}
		raw := a.Result
		if string(raw) != string(answer) {
			t.Fatalf("answer of %d bytes, want the %d sent", len(raw), len(answer))
		}
		// The result lies in its frame after `{"jsonrpc":"2.0","id":N,"result":`.
		if off := uintptr(unsafe.Pointer(unsafe.SliceData(raw))) % (2 << 20); off > 64 {
			t.Fatalf("the frame of a %d-byte answer does not start on a huge page (its result at %d bytes past one)", len(raw), off)
		}
	}
}
