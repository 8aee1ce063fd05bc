package pathlock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestLockExcludesAndTimesOut(t *testing.T) {
	l := New(t.TempDir())
	ctx := context.Background()
	release, err := l.Lock(ctx, "/w/a.txt", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// A second holder (its own open file description, as another process
	// would have) waits, and gives up after the bound.
	t0 := time.Now()
	if _, err := l.Lock(ctx, "/w/a.txt", 50*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("second lock: %v", err)
	}
	if d := time.Since(t0); d < 50*time.Millisecond || d > time.Second {
		t.Fatalf("waited %v", d)
	}
	// Another path is independent.
	other, err := l.Lock(ctx, "/w/b.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	other()
	release()
	again, err := l.Lock(ctx, "/w/a.txt", 0)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()

	// Cancelled while waiting.
	hold, _ := l.Lock(ctx, "/w/a.txt", 0)
	defer hold()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := l.Lock(cctx, "/w/a.txt", time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled wait: %v", err)
	}
}

func TestLockSerialises(t *testing.T) {
	l := New(t.TempDir())
	var inside, most int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				release, err := l.Lock(context.Background(), "/w/x", 5*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				inside--
				mu.Unlock()
				release()
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d holders at once", most)
	}
}

// TestSharedLocksShareAndExcludeTheExclusive: holders of the shared lock do
// not wait for each other; the exclusive lock waits for all of them, and
// the shared lock for the exclusive one.
func TestSharedLocksShareAndExcludeTheExclusive(t *testing.T) {
	l := New(t.TempDir())
	ctx := context.Background()
	a, err := l.LockShared(ctx, "gate", 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.LockShared(ctx, "gate", 0)
	if err != nil {
		t.Fatalf("a second shared holder: %v", err)
	}
	if _, err := l.Lock(ctx, "gate", 30*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("exclusive beside shared holders: %v", err)
	}
	a()
	if _, err := l.Lock(ctx, "gate", 30*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("exclusive beside one shared holder: %v", err)
	}
	b()
	x, err := l.Lock(ctx, "gate", 0)
	if err != nil {
		t.Fatalf("exclusive once the shared holders left: %v", err)
	}
	if _, err := l.LockShared(ctx, "gate", 30*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("shared beside the exclusive holder: %v", err)
	}
	x()
	s, err := l.LockShared(ctx, "gate", 0)
	if err != nil {
		t.Fatal(err)
	}
	s()
}
