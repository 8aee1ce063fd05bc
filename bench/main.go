// Command bench measures sightline end to end, as a user or an agent meets
// it, on generated Go files of 1,000 to 200,000 lines cut from the Go
// standard library: the CLI (process start included: read, edit, apply) and
// a `sightline serve` over stdio (read, edit, applyBlocks) driven by a client
// that applies workspace/applyEdit as an editor does. It prints p50/p99, throughput and peak RSS, and with -write
// regenerates the section of docs/performance.md between its markers.
//
//	go run ./bench            # full run (a few minutes)
//	go run ./bench -short     # small files, few runs: what CI runs
//	go run ./bench -read      # whole-file reads only, text vs --json, large files
//	go run ./bench -read -bin /tmp/old/sightline   # the same, of another build
//	go run ./bench -fixed       # the CLI's fixed cost against `sightline version`
//	go run ./bench -diag 10000  # what the editor is sent as a session reads
//	go run ./bench -write docs/performance.md
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/internal/gosrc"
	"github.com/sightline-lsp/sightline/server"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-launch" {
		os.Exit(launch(os.Args[2:]))
	}
	short := flag.Bool("short", false, "small files and few runs (CI: checks the suite works)")
	write := flag.String("write", "", "regenerate the measured section of this markdown file")
	runs := flag.Int("runs", 0, "runs per measure (default 31, 3 with -short)")
	readOnly := flag.Bool("read", false, "only the whole-file reads, text and --json, of the 100,000 and 200,000-line files, each -runs times")
	binary := flag.String("bin", "", "measure this sightline binary instead of building ./cmd/sightline")
	only := flag.Int("lines", 0, "measure only the file of this many lines (1000, 10000, 100000 or 200000)")
	diag := flag.Int("diag", 0, "only this many alternating one-line reads of one document through `sightline serve`: server CPU and notification bytes per read as the session grows")
	fixed := flag.Bool("fixed", false, "only the CLI's fixed cost: version, a range read, ledger, a one-line edit, a small patch, a whole read of 6.6 MB, each -runs times (default 20)")
	disk := flag.String("disk", "", "only the floor of an atomic replace of a 6.6 MB file on the disk of this folder: write, fsync, rename, fsync of the folder, SHA-256, each -runs times (default 20)")
	hashFiles := flag.Int("hash", 0, "only `sightline files --hash` over a tree of this many files of the standard library's source, against find | xargs -P sha256sum, each -runs times (default 5)")
	hooks := flag.Bool("hooks", false, "only the hook events of Claude Code and Codex through the workspace's daemon, and a session's first, against `sightline version`, each -runs times (default 20)")
	flag.Parse()
	if *hooks {
		n := *runs
		if n == 0 {
			n = 20
		}
		if err := hookEvents(*binary, n); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *hashFiles > 0 {
		n := *runs
		if n == 0 {
			n = 5
		}
		if err := hashTree(*binary, *hashFiles, n); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *disk != "" {
		n := *runs
		if n == 0 {
			n = 20
		}
		if err := diskFloor(*disk, n); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *fixed {
		n := *runs
		if n == 0 {
			n = 20
		}
		if err := fixedCost(*binary, n); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *diag > 0 {
		if err := runDiag(*binary, *diag); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *readOnly && *write != "" {
		fmt.Fprintln(os.Stderr, "bench: -write needs the full run, not -read")
		os.Exit(2)
	}
	if *only != 0 && *write != "" {
		fmt.Fprintln(os.Stderr, "bench: -write needs the full run, not -lines")
		os.Exit(2)
	}
	if err := run(*short, *readOnly, *binary, *write, *runs, *only); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// row is one measure at one file size.
type row struct {
	what  string
	lines int
	stats stats
	note  string
}

func run(short, readOnly bool, bin, write string, runs, only int) error {
	sizes := []int{1_000, 10_000, 100_000, 200_000}
	if runs == 0 {
		runs = 31
	}
	if short {
		sizes = []int{1_000, 10_000}
		runs = 3
	}
	if only != 0 {
		if !slices.Contains(sizes, only) {
			return fmt.Errorf("-lines %d: not one of %v", only, sizes)
		}
		sizes = []int{only}
	}
	whole := max(3, runs/3) // runs of a whole-file read
	if readOnly {
		sizes = sizes[len(sizes)-2:]
		whole = runs
	}
	tmp, bin, ws, err := prepare(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src, err := gosrc.Lines(sizes[len(sizes)-1])
	if err != nil {
		return err
	}
	files := map[int]string{}
	for _, n := range sizes {
		name := fmt.Sprintf("f%d.go", n)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(strings.Join(src[:n], "")), 0o644); err != nil {
			return err
		}
		files[n] = name
	}
	// A file changed in the last 2 s is not stat-cached (a write in the
	// same clock tick would not show); let the fresh files age past that.
	time.Sleep(2100 * time.Millisecond)
	// In the CLI's own process: the daemon's numbers are -fixed's.
	c := cli{bin: bin, ws: ws, env: append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "SIGHTLINE_DAEMON=0")}

	var rows []row
	add := func(r row) {
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "%-62s %7d lines  %s %s\n", r.what, r.lines, r.stats, r.note)
	}
	for _, n := range sizes {
		f := files[n]
		if _, _, _, err := c.run(nil, "read", f+":100-110"); err != nil { // first sight: a whole scan
			return err
		}
		if !readOnly {
			st, err := c.measure(runs, func(int) ([]string, []byte) { return []string{"read", f + ":100-110"}, nil })
			if err != nil {
				return err
			}
			add(row{"CLI `read F:100-110`", n, st, ""})
		}
		// Text and JSON runs alternate, so a change of the machine's load
		// weighs on both alike.
		both, err := c.measureEach(2*whole, 2, func(i int) ([]string, []byte) {
			if i%2 == 0 {
				return []string{"read", f, "--budget", "100000000"}, nil
			}
			return []string{"read", f, "--budget", "100000000", "--json"}, nil
		})
		if err != nil {
			return err
		}
		text, js := both[0], both[1]
		add(row{"CLI `read F --budget 1e8` (whole file, text)", n, text, ""})
		add(row{"CLI `read F --budget 1e8 --json`", n, js, fmt.Sprintf("%.2f× the text output (CPU %.2f×)", js.p50/text.p50, js.cpuP50/text.cpuP50)})
		if readOnly {
			continue
		}
		// Line 100 alternates between two contents, so each edit changes the
		// file and the ref for the next is known.
		line := strings.TrimRight(src[99], "\n")
		alt := []string{line, "// bench edit"}
		edits := filepath.Join(tmp, "edits.json")
		ed, err := c.measure(runs, func(i int) ([]string, []byte) {
			b, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("100:%s", hashline.Hash(alt[i%2])), "new_content": alt[(i+1)%2]}})
			os.WriteFile(edits, b, 0o644)
			return []string{"edit", f, "--edits", edits}, nil
		})
		if err != nil {
			return err
		}
		add(row{"CLI `edit F` one line", n, ed, ""})
		// `sightline apply`: one edit block on stdin per run. The block's old
		// text must occur once in the file, so line 100 first becomes a
		// marker (untimed) and each run then replaces the marker with the next.
		mark := func(i int) string { return fmt.Sprintf("// bench apply %d", i) }
		b, _ := json.Marshal([]map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("100:%s", hashline.Hash(alt[runs%2])), "new_content": mark(0)}})
		os.WriteFile(edits, b, 0o644)
		if _, _, _, err := c.run(nil, "edit", f, "--edits", edits); err != nil {
			return err
		}
		ap, err := c.measure(runs, func(i int) ([]string, []byte) {
			return []string{"apply"}, []byte(editBlock(f, mark(i), mark(i+1)))
		})
		if err != nil {
			return err
		}
		if err := lineIs(filepath.Join(ws, f), 100, mark(runs)); err != nil {
			return fmt.Errorf("sightline apply: %v", err)
		}
		add(row{"CLI `apply` one edit block (stdin)", n, ap, ""})
	}
	for _, n := range sizes {
		if readOnly {
			break
		}
		rs, err := stdio(bin, ws, files[n], n, runs*10)
		if err != nil {
			return err
		}
		for _, r := range rs {
			add(r)
		}
	}
	if write == "" {
		return nil
	}
	return regenerate(write, machine(), rows, short)
}

// prepare makes the run's temp folder (the caller removes it), the binary
// to measure (bin made absolute, or, when it is empty, a sightline built
// there) and an empty workspace in it.
func prepare(bin string) (tmp, binary, ws string, err error) {
	if tmp, err = os.MkdirTemp("", "sightline-bench-"); err != nil {
		return "", "", "", err
	}
	fail := func(err error) (string, string, string, error) {
		os.RemoveAll(tmp)
		return "", "", "", err
	}
	if bin != "" {
		if binary, err = filepath.Abs(bin); err != nil {
			return fail(err)
		}
	} else {
		binary = filepath.Join(tmp, "sightline")
		fmt.Fprintln(os.Stderr, "building sightline…")
		// Built as releases are (.goreleaser.yaml): without cgo, the binary
		// is linked statically, and the dynamic loader's work at every
		// start is not measured as sightline's.
		build := exec.Command("go", "build", "-trimpath", "-o", binary, "./cmd/sightline")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return fail(fmt.Errorf("go build: %v\n%s", err, out))
		}
	}
	ws = filepath.Join(tmp, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		return fail(err)
	}
	return tmp, binary, ws, nil
}

type cli struct {
	bin, ws string
	env     []string
}

// launch runs a command and prints its wall time (µs), peak RSS (KB) and
// CPU time, user and system (µs). The
// bench starts every CLI run through a fresh copy of itself in this mode:
// Linux reports a child's peak RSS as at least its parent's size when it
// forked, and the bench itself holds the files' text.
func launch(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, io.Discard, os.Stderr
	t := time.Now()
	err := cmd.Run()
	d := time.Since(t)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rss := peakRSS(cmd.ProcessState)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("%d %d %d\n", d.Microseconds(), rss, cpu.Microseconds())
	return 0
}

// run runs one command through launch; it returns the command's own wall
// time, peak RSS and CPU time.
func (c cli) run(stdin []byte, args ...string) (time.Duration, int64, time.Duration, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, 0, err
	}
	cmd := exec.Command(self, append([]string{"-launch", c.bin}, args...)...)
	cmd.Dir, cmd.Env = c.ws, c.env
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
	// The command's own output goes to launch's stdout before the numbers:
	// the numbers are the last line.
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("sightline %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	var us, rss, cpu int64
	if _, err := fmt.Sscan(lines[len(lines)-1], &us, &rss, &cpu); err != nil {
		return 0, 0, 0, fmt.Errorf("launch: %q: %v", out.String(), err)
	}
	return time.Duration(us) * time.Microsecond, rss, time.Duration(cpu) * time.Microsecond, nil
}

// measure runs a command n times (args(i) gives run i's arguments and
// standard input) and times each, start of the process to its exit.
func (c cli) measure(n int, args func(i int) ([]string, []byte)) (stats, error) {
	st, err := c.measureEach(n, 1, args)
	if err != nil {
		return stats{}, err
	}
	return st[0], nil
}

// measureEach is measure of k commands taking turns: run i is of command
// i%k, and the stats of command j are those of its runs.
func (c cli) measureEach(n, k int, args func(i int) ([]string, []byte)) ([]stats, error) {
	ds, cpus, rss := make([][]time.Duration, k), make([][]time.Duration, k), make([]int64, k)
	for i := range n {
		a, in := args(i)
		d, r, cpu, err := c.run(in, a...)
		if err != nil {
			return nil, err
		}
		ds[i%k] = append(ds[i%k], d)
		cpus[i%k] = append(cpus[i%k], cpu)
		rss[i%k] = max(rss[i%k], r)
	}
	st := make([]stats, k)
	for j := range k {
		st[j] = summarize(ds[j])
		st[j].rssKB = rss[j]
		st[j].cpuP50 = summarize(cpus[j]).p50
	}
	return st, nil
}

// editBlock is one edit block replacing the line old of path with new.
func editBlock(path, old, new string) string {
	return fmt.Sprintf("%s\n<<<< EDIT\n%s\n==== REPLACE\n%s\n>>>> EDIT END\n", path, old, new)
}

// lineIs checks line n (1-based) of a file on disk, so that a run whose
// edits were skipped without an error is not reported as a measure.
func lineIs(path string, n int, want string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	ls := strings.SplitN(string(b), "\n", n+1)
	if len(ls) < n || ls[n-1] != want {
		return fmt.Errorf("%s: line %d is not %q after the runs", path, n, want)
	}
	return nil
}

type stats struct {
	n        int
	p50, p99 float64 // ms
	cpuP50   float64 // ms of CPU, user and system (the CLI's)
	perSec   float64
	rssKB    int64
	hasRSS   bool // the CLI's peak RSS (the server's is not measured)
}

func summarize(ds []time.Duration) stats {
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	p99 := ds[min(len(ds)-1, (len(ds)*99+99)/100-1)]
	return stats{n: len(ds), p50: ms(ds[len(ds)/2]), p99: ms(p99), perSec: float64(len(ds)) / sum.Seconds(), hasRSS: true}
}

func (s stats) String() string {
	rss := "—"
	if s.hasRSS {
		rss = fmt.Sprintf("%d MB", s.rssKB/1024)
	}
	cpu := ""
	if s.hasRSS {
		cpu = fmt.Sprintf("  CPU p50 %7.2f ms", s.cpuP50)
	}
	return fmt.Sprintf("p50 %7.2f ms  p99 %7.2f ms%s  %7.1f/s  peak RSS %6s (n=%d)", s.p50, s.p99, cpu, s.perSec, rss, s.n)
}

// stdio drives `sightline serve` over its stdio: reads and edit blocks of a
// closed file (the blocks written to disk), then hashline edits and edit
// blocks of the same document open in the editor, whose workspace/applyEdit
// the client applies and reports back with didChange, as an editor does.
func stdio(bin, ws, file string, lines, runs int) ([]row, error) {
	ctx := context.Background()
	cmd := exec.Command(bin, "serve", "--log-level", "error", "--state-dir", filepath.Join(ws, ".state"))
	cmd.Dir = ws
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer cmd.Wait()
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(struct {
		io.Reader
		io.Writer
		io.Closer
	}{out, in, in}), jsonrpc2.WithCodec(server.Codec()))
	path := filepath.Join(ws, file)
	uri := "file://" + path
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	version := int32(1)
	conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() != "workspace/applyEdit" {
			return nil, nil
		}
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					Edits []struct {
						Range   any    `json:"range"`
						NewText string `json:"newText"`
					} `json:"edits"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		// The edits of one TextDocumentEdit all refer to the same text;
		// applied bottom to top as sequential changes they mean the same.
		var changes []map[string]any
		for _, dc := range p.Edit.DocumentChanges {
			for i := len(dc.Edits) - 1; i >= 0; i-- {
				changes = append(changes, map[string]any{"range": dc.Edits[i].Range, "text": dc.Edits[i].NewText})
			}
		}
		version++
		if os.Getenv("BENCH_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "applyEdit %s -> %v\n", req.Params(), changes)
		}
		conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": changes,
		})
		return map[string]any{"applied": true}, nil
	})
	call := func(method string, params, res any) error {
		_, err := conn.Call(ctx, method, params, res)
		return err
	}
	var raw json.RawMessage
	caps := map[string]any{"workspace": map[string]any{"applyEdit": true}, "general": map[string]any{"positionEncodings": []string{"utf-8"}}}
	if err := call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + ws, "capabilities": caps}, &raw); err != nil {
		return nil, err
	}
	conn.Notify(ctx, "initialized", map[string]any{})
	defer func() {
		call("shutdown", nil, nil)
		conn.Notify(ctx, "exit", nil)
	}()

	type readRes struct {
		OK      bool   `json:"ok"`
		Message string `json:"message"`
		Content string `json:"content"`
	}
	time1 := func(n int, f func(i int) error) (stats, error) {
		var ds []time.Duration
		for i := range n {
			t := time.Now()
			if err := f(i); err != nil {
				return stats{}, err
			}
			ds = append(ds, time.Since(t))
		}
		return summarize(ds), nil
	}
	read := func(r [2]int) func(int) error {
		return func(int) error {
			var res readRes
			if err := call("sightline/read", map[string]any{"session": "stdio", "textDocument": map[string]any{"uri": uri}, "range": map[string]int{"start": r[0], "end": r[1]}}, &res); err != nil {
				return err
			}
			if !res.OK {
				return fmt.Errorf("sightline/read: %s", res.Message)
			}
			return nil
		}
	}
	var rows []row
	st, err := time1(runs, read([2]int{100, 110}))
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{"stdio `sightline/read` 11 lines", lines, st, ""})
	st, err = time1(max(3, runs/5), read([2]int{1, 2000}))
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{"stdio `sightline/read` 2,000 lines", lines, st, ""})

	line100 := func(text []byte) string {
		l, _, _ := strings.Cut(strings.SplitAfterN(string(text), "\n", 101)[99], "\n")
		return l
	}
	edit := func(old, new string) error {
		var res struct {
			OK      bool   `json:"ok"`
			Applied bool   `json:"applied"`
			Message string `json:"message"`
		}
		ops := []map[string]string{{"type": "replace_line", "ref": fmt.Sprintf("100:%s", hashline.Hash(old)), "new_content": new}}
		if err := call("sightline/edit", map[string]any{"session": "stdio", "textDocument": map[string]any{"uri": uri}, "edits": ops}, &res); err != nil {
			return err
		}
		if !res.OK || !res.Applied {
			return fmt.Errorf("sightline/edit: %s", res.Message)
		}
		return nil
	}
	// blocks replaces line 100, known to read old, with new through one edit
	// block (its path relative to the workspace root, as a model writes it).
	blocks := func(old, new string) error {
		var res struct {
			OK      bool   `json:"ok"`
			Message string `json:"message"`
			Blocks  []struct {
				Status string `json:"status"`
			} `json:"blocks"`
		}
		if err := call("sightline/applyBlocks", map[string]any{"session": "stdio", "text": editBlock(file, old, new)}, &res); err != nil {
			return err
		}
		if !res.OK || len(res.Blocks) != 1 || res.Blocks[0].Status != "applied" {
			return fmt.Errorf("sightline/applyBlocks: %s", res.Message)
		}
		return nil
	}
	// Edit blocks on the closed file: each is written to disk. Line 100
	// first becomes a marker (untimed) so that the block's old text occurs
	// once; each block then replaces the marker with the next one.
	diskMark := func(i int) string { return fmt.Sprintf("// stdio disk block %d", i) }
	if err := edit(line100(text), diskMark(0)); err != nil {
		return nil, err
	}
	nBlocks := max(3, runs/5)
	st, err = time1(nBlocks, func(i int) error { return blocks(diskMark(i), diskMark(i+1)) })
	if err != nil {
		return nil, err
	}
	if err := lineIs(path, 100, diskMark(nBlocks)); err != nil {
		return nil, err
	}
	rows = append(rows, row{"stdio `sightline/applyBlocks` one block, file on disk", lines, st, "closed file: written to disk"})

	// The editor opens the file as it is now; from here every write goes
	// through workspace/applyEdit.
	if text, err = os.ReadFile(path); err != nil {
		return nil, err
	}
	conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": version, "text": string(text)}})
	if err := read([2]int{95, 105})(0); err != nil {
		return nil, err
	}
	first := line100(text)
	// Each edit writes a new content (an A→B→A cycle makes a ref to A
	// ambiguous across the versions the session saw).
	content := func(i int) string {
		if i == 0 {
			return first
		}
		return fmt.Sprintf("// stdio bench edit %d", i)
	}
	nEdits := max(3, runs/5)
	st, err = time1(nEdits, func(i int) error { return edit(content(i), content(i+1)) })
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{"stdio `sightline/edit` + applyEdit round trip", lines, st, ""})
	openMark := func(i int) string {
		if i == 0 {
			return content(nEdits)
		}
		return fmt.Sprintf("// stdio open block %d", i)
	}
	st, err = time1(nBlocks, func(i int) error { return blocks(openMark(i), openMark(i+1)) })
	if err != nil {
		return nil, err
	}
	rows = append(rows, row{"stdio `sightline/applyBlocks` one block + applyEdit round trip", lines, st, "open in the editor: applied through workspace/applyEdit"})
	for i := range rows {
		rows[i].stats.hasRSS = false
	}
	return rows, nil
}

// machine describes where the numbers were taken.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("%s, %d cores, %s %s/%s%s, %s", cpu, runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH, load, time.Now().UTC().Format("2006-01-02"))
}

const (
	beginMark = "<!-- bench:begin (generated by go run ./bench -write docs/performance.md; edits here are overwritten) -->"
	endMark   = "<!-- bench:end -->"
)

// regenerate replaces the text between the markers of a markdown file (or
// appends the section) with the measured table.
func regenerate(path, machine string, rows []row, short bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nMeasured by `go run ./bench` on %s", beginMark, machine)
	if short {
		b.WriteString(" (-short: small files, 3 runs; not for comparison)")
	}
	b.WriteString(". Wall time, process start to exit for the CLI, request to answer over stdio; peak RSS is the largest of the CLI's processes.\n\n")
	b.WriteString("| what | lines | p50 | p99 | per second | peak RSS | note |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rows {
		rss := "—"
		if r.stats.hasRSS {
			rss = fmt.Sprintf("%d MB", r.stats.rssKB/1024)
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f ms | %.2f ms | %.1f | %s | %s |\n", r.what, r.lines, r.stats.p50, r.stats.p99, r.stats.perSec, rss, r.note)
	}
	b.WriteString("\n" + endMark)
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	i, j := strings.Index(s, beginMark), strings.Index(s, endMark)
	if i >= 0 && j > i {
		s = s[:i] + b.String() + s[j+len(endMark):]
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n## End to end (go run ./bench)\n\n" + b.String() + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
