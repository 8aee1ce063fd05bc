package daemon

import (
	"sync"
	"time"
)

// releaseAfter is how long a daemon without a call keeps the workspace's
// root folder open: past it, it closes its handles (holder.release), so
// that an idle daemon keeps no file system of the workspace busy
// (umount), and the next call opens the root again.
const releaseAfter = 30 * time.Second

// holder opens and closes the workspace root's handles around the calls:
// held while a call runs, released once the daemon is idle.
type holder struct {
	root string
	set  func([]string) // the engines' roots (workspace.Workspace.SetRoots)

	mu       sync.Mutex
	active   int  // calls between hold and their end
	released bool // the root's handles are closed
}

// hold opens the root again if it was released, for a call that has just
// checked it is still the folder the daemon opened (sameRoot); done ends
// the call's hold.
func (h *holder) hold() (done func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		h.set([]string{h.root})
		h.released = false
	}
	h.active++
	return func() {
		h.mu.Lock()
		h.active--
		h.mu.Unlock()
	}
}

// release closes the root's handles when no call holds them; it reports
// whether it did so now.
func (h *holder) release() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.active > 0 || h.released {
		return false
	}
	h.set(nil)
	h.released = true
	return true
}
