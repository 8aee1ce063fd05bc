//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A command that makes one call and exits collects garbage only when it
// must, but what it must not outgrow is set by what it touches: its peak
// RSS stays within 64 MB plus the size of the files it touches. A patch
// creating many small files in one folder makes garbage out of proportion to
// them (each new file's checks), which a collector left off until a fixed,
// large heap kept: hundreds of MB for a patch of a few hundred KB.
func TestOneCallCommandMemoryBoundedByInput(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	bin := buildBinary(t)
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	const files = 1000
	var diff strings.Builder
	for i := range files {
		fmt.Fprintf(&diff, "--- /dev/null\n+++ b/new/f%05d.txt\n@@ -0,0 +1 @@\n+hello %d\n", i, i)
	}
	env := []string{"XDG_STATE_HOME=" + filepath.Join(ws, ".state"), "SIGHTLINE_NO_BRIDGE=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			env = append(env, kv)
		}
	}
	// Linux counts the memory of this process at the fork in the child's
	// peak: the test holds little, and is checked to be well below the bound.
	const bound = 64 << 20 // the files are a few KB
	if self := selfRSS(t); self > bound/2 {
		t.Skipf("the test process holds %d MB, too much to measure a child's peak under %d MB", self>>20, bound>>20)
	}
	cmd := exec.Command(bin, "patch")
	cmd.Dir, cmd.Env = ws, env
	cmd.Stdin = strings.NewReader(diff.String()) // a pipe: its size is not known ahead
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("sightline patch: %v\n%s", err, errb.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "new", fmt.Sprintf("f%05d.txt", files-1))); err != nil {
		t.Fatalf("the patch did not create its files: %v", err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("patch creating %d files: peak RSS %d MB", files, rss>>20)
	if rss > bound {
		t.Errorf("a patch creating %d small files: peak RSS %d MB, want at most %d MB (64 MB + the files)", files, rss>>20, bound>>20)
	}
}

// selfRSS is this process's resident memory now, from /proc.
func selfRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}
