package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressAfter is how long work runs before its progress is shown: a call
// that ends sooner stays silent.
const progressAfter = time.Second

// terminalProgress shows a long call's progress on a terminal, one line
// rewritten in place, once the call has run progressAfter; done clears the
// line before the answer is printed.
type terminalProgress struct {
	w     io.Writer
	what  string // "hashed %d of %d files"
	start time.Time

	mu    sync.Mutex
	shown bool
}

func newTerminalProgress(w io.Writer, what string) *terminalProgress {
	return &terminalProgress{w: w, what: what, start: time.Now()}
}

// report is an engine.Progress.
func (p *terminalProgress) report(done, total int) {
	if time.Since(p.start) < progressAfter {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shown = true
	fmt.Fprintf(p.w, "\r\x1b[Ksightline: "+p.what, done, total)
}

// done clears the progress line, if one was shown.
func (p *terminalProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		io.WriteString(p.w, "\r\x1b[K")
		p.shown = false
	}
}
