// Package procgroup starts a program whose whole process tree can be
// ended: an agent that relaunches itself in a child (Gemini CLI) or starts
// servers of its own (sightline mcp) leaves them running, holding its
// caller's pipes open, when only the program it was started as is
// signalled.
package procgroup

import (
	"os/exec"
	"sync"
	"time"
)

// Group is a started program and every process it starts (that does not
// leave the group itself: a daemon that detaches is not ended).
type Group struct {
	sys  sysGroup
	once sync.Once
}

// Start starts cmd in a group of its own: on Unix a new process group
// (signals sent to its caller's group, a terminal's ^C, do not reach it:
// the caller ends it), on Windows a new console process group in a job
// object.
func Start(cmd *exec.Cmd) (*Group, error) {
	prepare(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &Group{}
	g.sys = attach(cmd)
	return g, nil
}

// pollEvery is how often Stop looks whether the group is gone.
const pollEvery = 20 * time.Millisecond

// Stop ends the group: asked to stop (SIGTERM; on Windows CTRL_BREAK),
// then, whoever is left after grace, killed. It returns once no process of
// the group is left, or at most grace plus as long again after the kill;
// gone says whether the group was seen to end. Only its first call acts;
// later ones return at once.
func (g *Group) Stop(grace time.Duration) (gone bool) {
	acted := false
	g.once.Do(func() {
		acted = true
		gone = g.sys.stop(grace)
	})
	if !acted {
		return true
	}
	return gone
}

// waitGone polls empty until it reports true or d has passed.
func waitGone(empty func() bool, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if empty() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
}
