package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLLMFileAccessExamples runs the examples of LLM_FILE_ACCESS.md, the
// agents' guide, against the real CLI (as TestReadmeTour does for the
// README), so what the guide says an agent will see stays true.
func TestLLMFileAccessExamples(t *testing.T) {
	doc, err := os.ReadFile("../../LLM_FILE_ACCESS.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := tourSteps(t, string(doc), "Examples")
	if len(steps) < 8 {
		t.Fatalf("LLM_FILE_ACCESS.md: %d example commands found in \"Examples\"", len(steps))
	}
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("SIGHTLINE_STATE_DIR", t.TempDir())
	t.Chdir(ws)
	for _, st := range steps {
		got := st.run(t)
		if err := matchLines(st.want, got); err != nil {
			t.Errorf("LLM_FILE_ACCESS.md line %d: $ %s\n%v\n--- the guide shows:\n%s\n--- sightline printed:\n%s",
				st.line, st.text, err, strings.Join(st.want, "\n"), strings.Join(got, "\n"))
		}
	}
}
