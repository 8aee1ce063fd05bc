// Package gosrc gives benchmarks real source to work on: lines of Go from
// the toolchain's own standard library, the same lines on every run of the
// same Go version.
package gosrc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Root is the toolchain's GOROOT: the running binary's, else (a binary
// built with -trimpath and run by go run knows none) the go command's.
func Root() (string, error) {
	if r := runtime.GOROOT(); r != "" {
		return r, nil
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("gosrc: go env GOROOT: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Lines returns n lines of non-test Go from GOROOT/src, each with its "\n".
func Lines(n int) ([]string, error) {
	goroot, err := Root()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(goroot, "src")
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= n {
			return errors.Join(err, fs.SkipAll)
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return fs.SkipDir
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, strings.SplitAfter(string(b), "\n")...)
		if last := out[len(out)-1]; last == "" {
			out = out[:len(out)-1]
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		return nil, err
	}
	if len(out) < n {
		return nil, fmt.Errorf("only %d lines of Go under %s", len(out), root)
	}
	return out[:n], nil
}
