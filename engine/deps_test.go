package engine

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTransportFree: package server is the only one that speaks LSP; the
// features here return plain values the CLI can use as well.
func TestTransportFree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "go.lsp.dev/") {
			t.Errorf("package engine depends on %s: LSP types belong in package server", dep)
		}
	}
}
