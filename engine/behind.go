package engine

import "sync"

// behind runs jobs off the caller's path, one at a time, in the order they
// were queued: the history lists versions and the audit log lists calls in
// the order they happened, which one goroutine per job would not keep.
// The audit log and the history share one, the database's writer.
type behind struct {
	pending sync.WaitGroup

	mu      sync.Mutex
	queue   []func()
	running bool
}

// enqueue runs job after the jobs queued before it.
func (b *behind) enqueue(job func()) {
	b.pending.Add(1)
	b.mu.Lock()
	b.queue = append(b.queue, job)
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.run()
	}
}

func (b *behind) run() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		job := b.queue[0]
		b.queue = b.queue[1:]
		b.mu.Unlock()
		job()
		b.pending.Done()
	}
}

// drain waits for the jobs queued so far.
func (b *behind) drain() { b.pending.Wait() }
