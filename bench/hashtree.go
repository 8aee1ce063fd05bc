package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/internal/gosrc"
)

// hashTree measures `sightline files --hash` against the floor of hashing
// the same tree with the system's tools, `find … -print0 | xargs -0
// -P$(nproc) sha256sum`, on a copy of the standard library's source (files
// files, their folders kept), warm in the page cache, taking turns. The
// command runs in its own process each time (no daemon: a daemon would
// remember the hashes and compute none).
func hashTree(bin string, files, runs int) error {
	tmp, bin, ws, err := prepare(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	goroot, err := gosrc.Root()
	if err != nil {
		return err
	}
	src := filepath.Join(goroot, "src")
	n, size := 0, int64(0)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= files {
			return fs.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		if strings.HasPrefix(filepath.Base(rel), ".") {
			return nil // .gitignore and the like: the listing would leave out what they name
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		dst := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		n, size = n+1, size+int64(len(b))
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return err
	}
	c := cli{bin: bin, ws: ws, env: append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "SIGHTLINE_DAEMON=0")}
	// Both warm the page cache (and sightline its state folder) first.
	find := func() (time.Duration, error) {
		cmd := exec.Command("sh", "-c", `find . -path ./.git -prune -o -type f -print0 | xargs -0 -P"$(nproc)" sha256sum >/dev/null`)
		cmd.Dir = ws
		t := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("find | xargs sha256sum: %v\n%s", err, out)
		}
		return time.Since(t), nil
	}
	if _, err := find(); err != nil {
		return err
	}
	if _, _, _, err := c.run(nil, "files", "--hash"); err != nil {
		return err
	}
	var ours, theirs []time.Duration
	for range runs {
		d, _, _, err := c.run(nil, "files", "--hash")
		if err != nil {
			return err
		}
		ours = append(ours, d)
		if d, err = find(); err != nil {
			return err
		}
		theirs = append(theirs, d)
	}
	s, f := summarize(ours), summarize(theirs)
	mbs := func(ms float64) float64 { return float64(size) / 1e6 / (ms / 1000) }
	fmt.Printf("hashing %d files, %.1f MB, warm, %d runs each, taking turns (%s)\n", n, float64(size)/1e6, runs, machine())
	fmt.Printf("%-50s p50 %8.1f ms  %7.1f MB/s\n", "sightline files --hash", s.p50, mbs(s.p50))
	fmt.Printf("%-50s p50 %8.1f ms  %7.1f MB/s\n", "find | xargs -0 -P$(nproc) sha256sum", f.p50, mbs(f.p50))
	fmt.Printf("throughput of sightline over the tools: %.2f×\n", f.p50/s.p50)
	return nil
}
