package engine

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestDrainWhileQueueing: a drain (a listing of sessions waits for the
// audit rows queued before it) while calls queue more: each drain returns
// once the jobs queued before it ran, and, under -race, the two never race
// (a sync.WaitGroup forbids an Add from zero concurrent with a Wait).
func TestDrainWhileQueueing(t *testing.T) {
	b := &behind{}
	var ran atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				b.enqueue(func() { ran.Add(1) })
			}
		}()
	}
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				b.drain()
			}
		}()
	}
	wg.Wait()
	b.drain()
	if n := ran.Load(); n != 800 {
		t.Fatalf("%d jobs ran after the last drain, want 800", n)
	}
}
