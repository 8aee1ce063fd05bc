package main

import (
	"strings"
	"testing"
	"time"
)

// TestTerminalProgress: work shorter than progressAfter shows nothing;
// longer work shows one line rewritten in place, cleared at the end.
func TestTerminalProgress(t *testing.T) {
	var b strings.Builder
	p := newTerminalProgress(&b, "hashed %d of %d files")
	p.report(1, 10)
	p.done()
	if b.Len() != 0 {
		t.Fatalf("short work showed %q", b.String())
	}
	p.start = time.Now().Add(-2 * progressAfter)
	p.report(3, 10)
	p.report(10, 10)
	p.done()
	if want := "\r\x1b[Ksightline: hashed 3 of 10 files\r\x1b[Ksightline: hashed 10 of 10 files\r\x1b[K"; b.String() != want {
		t.Fatalf("shown %q, want %q", b.String(), want)
	}
}
