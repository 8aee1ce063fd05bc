//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestACPEndsTheAgentsGroup: an agent that leaves processes of its own
// running (Gemini CLI relaunches itself in a child; agents start MCP
// servers) does not outlive the session, however it ends: the editor
// closing sightline's input, a signal to sightline, the agent exiting by
// itself. Of its two grandchildren one ignores SIGTERM: it is killed after
// the grace period.
func TestACPEndsTheAgentsGroup(t *testing.T) {
	c := acpDemo(t)
	for _, end := range []string{"editor", "signal", "agent"} {
		t.Run(end, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			// The grandchildren keep the agent's output open, as Gemini
			// CLI's relaunched child does.
			script := `sleep 300 & echo $! > "$PIDS.tmp"
(trap '' TERM; sleep 300; :) & echo $! >> "$PIDS.tmp"
mv "$PIDS.tmp" "$PIDS"
echo '{"jsonrpc":"2.0","method":"_test/ready","params":{}}'
if [ "$END" = agent ]; then exit 3; fi
cat > /dev/null`
			cmd := exec.Command(c.bin, "acp", "--", "sh", "-c", script)
			cmd.Dir = c.dir
			cmd.Env = append(c.env, "PIDS="+pids, "END="+end)
			cmd.Stderr = testWriter{t}
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var kids []int
			t.Cleanup(func() {
				in.Close()
				cmd.Process.Kill()
				for _, k := range kids {
					syscall.Kill(k, syscall.SIGKILL)
				}
			})
			if !bufio.NewScanner(out).Scan() {
				t.Fatal("the agent's first line did not come")
			}
			for _, f := range strings.Fields(mustRead(t, pids)) {
				k, _ := strconv.Atoi(f)
				kids = append(kids, k)
			}
			if len(kids) != 2 {
				t.Fatalf("grandchildren %v", kids)
			}
			if pg, _ := syscall.Getpgid(kids[0]); pg == syscall.Getpgrp() {
				t.Errorf("the agent runs in sightline's caller's process group %d, not its own", pg)
			}
			switch end {
			case "editor":
				in.Close()
			case "signal":
				cmd.Process.Signal(syscall.SIGTERM)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			const bound = 10 * time.Second
			select {
			case <-done:
			case <-time.After(bound):
				t.Fatalf("sightline acp did not exit within %v", bound)
			}
			deadline := time.Now().Add(time.Second)
			for _, k := range kids {
				for alive(k) {
					if time.Now().After(deadline) {
						t.Fatalf("the agent's process %d outlived sightline acp (%s ended the session)", k, end)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			if end == "agent" && cmd.ProcessState.ExitCode() != 3 {
				t.Errorf("exit code %d, want the agent's 3", cmd.ProcessState.ExitCode())
			}
		})
	}
}

// alive: the process exists and is not a zombie (one nobody reaped yet has
// ended).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: signalled, so alive
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
