package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/handlers"
)

// workspaceRoot is the nearest folder above the working directory holding
// .git, else the working directory (PROTOCOL section 8).
func workspaceRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd, nil
		}
		dir = parent
	}
}

// openEnv assembles the same engines the language server uses, sharing its
// ledger database.
func openEnv(ctx context.Context, stderr io.Writer) (*handlers.Env, error) {
	root, err := workspaceRoot()
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(root)
	if err != nil {
		fmt.Fprintf(stderr, "sightline: %v (using defaults)\n", err)
		cfg = config.Default()
	}
	return handlers.Setup(ctx, handlers.Options{Roots: []string{root}, Config: cfg, StateDir: os.Getenv("SIGHTLINE_STATE_DIR")}), nil
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func runVersion(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stdout, "sightline", versionString())
	return exitOK
}
