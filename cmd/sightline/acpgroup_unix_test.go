//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
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

// TestACPEndsGeminiCLI: the real Gemini CLI (`gemini --acp`; GEMINI_CLI
// names its entry point, else testdata/agents' npm install holds it)
// relaunches itself in a child node process, which answers the editor and
// starts the session's MCP servers (sightline's among them). When the
// editor closes sightline's input, none of them outlives sightline.
func TestACPEndsGeminiCLI(t *testing.T) {
	gemini := os.Getenv("GEMINI_CLI")
	if gemini == "" {
		gemini, _ = filepath.Abs("../../testdata/agents/node_modules/@google/gemini-cli/bundle/gemini.js")
	}
	if _, err := os.Stat(gemini); err != nil {
		requireOrSkip(t, "Gemini CLI (npm ci in testdata/agents, or GEMINI_CLI)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("the processes below sightline are found in /proc")
	}
	c := acpDemo(t)
	cmd := exec.Command(c.bin, "acp", "--", "node", gemini, "--acp")
	cmd.Dir = c.dir
	cmd.Env = append(c.env, "HOME="+t.TempDir(), "GEMINI_API_KEY=test", "GEMINI_CLI_TRUST_WORKSPACE=true",
		"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9", "NO_BROWSER=true")
	cmd.Stderr = testWriter{t}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var procs []int
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		for _, p := range procs {
			syscall.Kill(p, syscall.SIGKILL)
		}
	})
	// A session: sightline adds its MCP server, which Gemini CLI starts.
	fmt.Fprintf(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
	fmt.Fprintf(in, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", c.dir)
	answered := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0","id":2,`) {
				answered <- sc.Text()
				break
			}
		}
		close(answered)
		io.Copy(io.Discard, out)
	}()
	select {
	case a, ok := <-answered:
		if !ok || !strings.Contains(a, "sessionId") {
			t.Fatalf("Gemini CLI did not create the session: %q", a)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Gemini CLI did not answer session/new within 60 s")
	}
	procs = descendants(cmd.Process.Pid)
	if len(procs) < 2 {
		t.Fatalf("sightline's processes below it: %v, want Gemini CLI and the child it relaunched itself in", procs)
	}
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("sightline acp did not exit within 15 s of the editor closing its input")
	}
	deadline := time.Now().Add(time.Second)
	for _, p := range procs {
		for alive(p) {
			if time.Now().After(deadline) {
				t.Fatalf("Gemini CLI's process %d outlived sightline acp", p)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// descendants are the processes below pid, as /proc says.
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}
