package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// built is the sightline binary the tests run, built once per test process:
// a link per test cost more than most tests' own work.
var built struct {
	once      sync.Once
	dir, path string
	err       error
	out       []byte
}

func TestMain(m *testing.M) {
	// Each command of these tests runs in its own process unless the test
	// starts the workspace's daemon (daemonCLI, TestDaemonIsOnByDefault):
	// one daemon per test's workspace would outlive most tests.
	if _, set := os.LookupEnv("SIGHTLINE_DAEMON"); !set {
		os.Setenv("SIGHTLINE_DAEMON", "0")
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildBinary returns the path of cmd/sightline built from this tree
// (CGO_ENABLED=0, as released). Tests only run it, never change it.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "sightline-test-bin-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "sightline")
		if runtime.GOOS == "windows" {
			built.path += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", built.path, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		tb.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

// run runs a command as main does, but in a process that does not exit
// with it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runIn(context.Background(), args, stdin, stdout, stderr)
}
