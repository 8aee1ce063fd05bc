package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/server"
)

// diagReads drives `sightline serve` over stdio through reads of one
// document open in the editor, one line at a time, every other line: each
// read leaves one more unread range. It reports the server's CPU time per
// read and the bytes of notifications per read over the first and the last
// thousand reads: neither may grow with the reads before.
func diagReads(bin, ws string, reads int) error {
	ctx := context.Background()
	args := []string{"serve", "--log-level", "error", "--state-dir", filepath.Join(ws, ".state-diag")}
	if p := os.Getenv("SIGHTLINE_BENCH_CPUPROFILE"); p != "" {
		args = append(args, "--cpuprofile", p)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = ws
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Wait()
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(struct {
		io.Reader
		io.Writer
		io.Closer
	}{out, in, in}), jsonrpc2.WithCodec(server.Codec()))
	var noteBytes, notes atomic.Int64
	conn.Go(ctx, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			noteBytes.Add(int64(len(req.Params())))
			notes.Add(1)
		}
		return nil, nil
	})
	call := func(method string, params, res any) error {
		_, err := conn.Call(ctx, method, params, res)
		return err
	}
	caps := map[string]any{
		"workspace":    map[string]any{"applyEdit": true},
		"general":      map[string]any{"positionEncodings": []string{"utf-8"}},
		"experimental": map[string]any{"sightline": map[string]any{"coverageChanges": true}},
	}
	var raw json.RawMessage
	if err := call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + ws, "capabilities": caps}, &raw); err != nil {
		return err
	}
	conn.Notify(ctx, "initialized", map[string]any{})
	defer func() {
		call("shutdown", nil, nil)
		conn.Notify(ctx, "exit", nil)
	}()
	var src strings.Builder
	for i := range 2*reads + 1 {
		fmt.Fprintf(&src, "\tvalue%d := compute(%d)\n", i, i)
	}
	uri := "file://" + filepath.Join(ws, "diag.go")
	conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": src.String()}})

	type mark struct {
		cpu, wall time.Duration // wall: of the reads alone
		bytes     int64
		answers   int64
	}
	var wall time.Duration
	var answers int64
	at := func() (mark, error) {
		cpu, err := procCPU(cmd.Process.Pid)
		return mark{cpu, wall, noteBytes.Load(), answers}, err
	}
	// Each stretch ends once the server's publishing has settled, so the
	// stretch carries the cost of the reads in it.
	settle := func() {
		for n := notes.Load(); ; {
			time.Sleep(200 * time.Millisecond)
			if m := notes.Load(); m == n {
				return
			} else {
				n = m
			}
		}
	}
	per := max(1, reads/10)
	var marks []mark
	settle()
	for i := range reads {
		if i%per == 0 {
			settle()
			m, err := at()
			if err != nil {
				return err
			}
			marks = append(marks, m)
		}
		line := 2*i + 1
		var res struct {
			OK      bool   `json:"ok"`
			Message string `json:"message"`
		}
		var raw json.RawMessage
		t := time.Now()
		if err := call("sightline/read", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": map[string]int{"start": line, "end": line}}, &raw); err != nil {
			return err
		}
		wall += time.Since(t)
		answers += int64(len(raw))
		if err := json.Unmarshal(raw, &res); err != nil {
			return err
		}
		if !res.OK {
			return fmt.Errorf("sightline/read: %s", res.Message)
		}
	}
	settle()
	m, err := at()
	if err != nil {
		return err
	}
	marks = append(marks, m)
	fmt.Printf("%d alternating one-line reads of one %d-line document open in the editor, over stdio\n", reads, 2*reads+1)
	fmt.Printf("%-14s %18s %22s %16s %14s\n", "reads", "server CPU/read", "notification B/read", "answer B/read", "read mean")
	for k := 1; k < len(marks); k++ {
		a, b := marks[k-1], marks[k]
		n := float64(per)
		fmt.Printf("%6d-%-7d %15.3f ms %22.0f %16.0f %11.3f ms\n", (k-1)*per+1, k*per,
			float64((b.cpu-a.cpu).Microseconds())/1000/n, float64(b.bytes-a.bytes)/n, float64(b.answers-a.answers)/n,
			float64((b.wall-a.wall).Microseconds())/1000/n)
	}
	first, last := marks[1].cpu-marks[0].cpu, marks[len(marks)-1].cpu-marks[len(marks)-2].cpu
	fmt.Printf("server CPU per read, last %d over first %d: %.2f×\n\n", per, per, float64(last)/float64(first))
	return nil
}

// procCPU is a process's CPU time, user and system, from /proc (Linux).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

// runDiag builds (or takes) the binary and runs diagReads in a fresh workspace.
func runDiag(bin string, reads int) error {
	tmp, bin, ws, err := prepare(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	return diagReads(bin, ws, reads)
}
