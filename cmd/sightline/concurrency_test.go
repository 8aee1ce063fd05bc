package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/bridge"
)

// TestConcurrentProcessesNoLostUpdates: real sightline processes read and
// then edit one file (each inserting after its own anchor line), and others
// edit files of their own, all at once. Every edit answered applied is in the
// final file, no refused one is, the file is never torn, and no process
// reports a locked database.
func TestConcurrentProcessesNoLostUpdates(t *testing.T) {
	t.Parallel() // mostly waiting on processes and bounds: beside the other long ones
	lostUpdates(t, false)
}

// TestConcurrentProcessesWithServerNoLostUpdates: the same with a running
// language server: half the workers' calls go through its socket (the
// server writes), half keep to the disk (SIGHTLINE_NO_BRIDGE): server and
// CLI writers on the same files lose nothing either.
func TestConcurrentProcessesWithServerNoLostUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dozens of processes")
	}
	lostUpdates(t, true)
}

func lostUpdates(t *testing.T, withServer bool) {
	const procs, rounds = 6, 30
	files := map[string]string{}
	var shared strings.Builder
	for i := range procs {
		fmt.Fprintf(&shared, "anchor %d\n", i)
		files[fmt.Sprintf("own%d.txt", i)] = "anchor\n"
	}
	files["shared.txt"] = shared.String()
	c := newCLI(t, files)
	disk := c
	if withServer {
		startServer(t, c)
		d := *c
		d.env = append(append([]string(nil), c.env...), "SIGHTLINE_NO_BRIDGE=1")
		disk = &d
	}

	type outcome struct {
		applied []string // the lines of the edits answered applied
		refused int
		faults  []string
	}
	worker := func(c *cli, file, anchor, tag, session string) outcome {
		var o outcome
		for r := range rounds {
			out, errOut, code := c.run("", "read", file, "--json", "--session", session)
			if code != 0 {
				o.faults = append(o.faults, fmt.Sprintf("read exit %d: %s%s", code, out, errOut))
				continue
			}
			var rr struct{ Content string }
			json.Unmarshal([]byte(out), &rr)
			ref := ""
			for _, l := range strings.Split(rr.Content, "\n") {
				if strings.HasSuffix(l, "|"+anchor) {
					ref = strings.SplitN(l, "|", 2)[0]
				}
			}
			if ref == "" {
				o.faults = append(o.faults, "anchor not in read: "+rr.Content)
				continue
			}
			line := fmt.Sprintf("%s round %d", tag, r)
			ops := fmt.Sprintf(`[{"type":"insert_after","ref":%q,"new_content":%q}]`, ref, line)
			out, errOut, code = c.run(ops, "edit", file, "--edits", "-", "--json", "--session", session)
			if strings.Contains(out+errOut, "database is locked") {
				o.faults = append(o.faults, "database is locked reached the user: "+out+errOut)
			}
			switch code {
			case 0:
				o.applied = append(o.applied, line)
			case 1:
				o.refused++
			default:
				o.faults = append(o.faults, fmt.Sprintf("edit exit %d: %s%s", code, out, errOut))
			}
		}
		return o
	}

	start := time.Now()
	results := make([]outcome, 2*procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			w := c
			if i%2 == 1 {
				w = disk
			}
			results[i] = worker(w, "shared.txt", fmt.Sprintf("anchor %d", i), fmt.Sprintf("shared p%d", i), fmt.Sprintf("s%d", i))
		})
		wg.Go(func() {
			w := c
			if i%2 == 1 {
				w = disk
			}
			results[procs+i] = worker(w, fmt.Sprintf("own%d.txt", i), "anchor", fmt.Sprintf("own p%d", i), fmt.Sprintf("o%d", i))
		})
	}
	wg.Wait()

	applied, refused := 0, 0
	for i, o := range results {
		for _, f := range o.faults {
			t.Errorf("worker %d: %s", i, f)
		}
		file := "shared.txt"
		if i >= procs {
			file = fmt.Sprintf("own%d.txt", i-procs)
		}
		b, err := os.ReadFile(filepath.Join(c.dir, file))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, l := range o.applied {
			if !strings.Contains(text, "\n"+l+"\n") {
				t.Errorf("%s: edit %q was answered applied but is not in the file", file, l)
			}
		}
		applied += len(o.applied)
		refused += o.refused
	}
	// No torn file and no line of a refused edit: the shared file holds its
	// anchors and exactly the applied lines.
	b, _ := os.ReadFile(filepath.Join(c.dir, "shared.txt"))
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := procs
	for _, o := range results[:procs] {
		want += len(o.applied)
	}
	if len(got) != want {
		t.Errorf("shared.txt has %d lines, want %d anchors and applied edits", len(got), want)
	}
	for _, l := range got {
		if !strings.HasPrefix(l, "anchor ") && !strings.HasPrefix(l, "shared p") {
			t.Errorf("shared.txt holds a torn line %q", l)
		}
	}
	t.Logf("%d processes x %d rounds (server: %v): %d applied, %d refused, in %v", 2*procs, rounds, withServer, applied, refused, time.Since(start).Round(time.Millisecond))
	if applied == 0 {
		t.Fatal("no edit applied at all")
	}
}

// startServer runs `sightline serve` on c's workspace until the test ends
// (or the test kills it), and waits for its socket.
func startServer(t *testing.T, c *cli) *exec.Cmd {
	t.Helper()
	return startServerCaps(t, c, "{}")
}

// startServerCaps is startServer with the client capabilities caps; the
// server's requests to the client go unanswered.
func startServerCaps(t *testing.T, c *cli, caps string) *exec.Cmd {
	t.Helper()
	state := stateDirOf(t, c)
	sockDir, err := bridge.Dir(state)
	if err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(c.bin, "serve")
	srv.Dir, srv.Env = c.dir, c.env
	stdin, _ := srv.StdinPipe()
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	go io.Copy(io.Discard, stdout)
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":%s}}`, uri.File(c.dir), caps)
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(init), init)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if len(bridge.Sockets(sockDir)) > 0 {
			return srv
		}
	}
	t.Fatal("sightline serve opened no socket")
	return nil
}
