// Command gen writes the agent tools of sightline's operation table to the
// editors' tools.json files (ops.ToolsFiles), from which the VS Code
// extension's package.json and both editors' tools are derived:
//
//	go generate ./ops     (or: go run ./ops/gen)
//
// then, for VS Code's static declarations: cd editors/vscode && npm run tools.
// TestToolsJSON fails while a committed file differs from what it writes.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sightline-lsp/sightline/ops"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	b, err := ops.ToolsJSON()
	if err != nil {
		return err
	}
	for _, f := range ops.ToolsFiles {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), b, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", f)
	}
	return nil
}

// moduleRoot is the folder holding go.mod, at or above the current one.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the current folder")
		}
		dir = parent
	}
}
