package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestStartDoesLittleInSightlinesOwnPackages holds what sightline's own
// packages do when any sightline process starts (their package variables
// and init functions): every CLI call and every hook event pays it before
// it does anything. Work that only some commands need (the agent tools'
// input schemas, a hook's regular expressions) is done on first use. The
// runtime reports each package's initialization (GODEBUG=inittrace=1);
// allocated bytes are what this test counts, as they do not depend on the
// machine's load.
func TestStartDoesLittleInSightlinesOwnPackages(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sightline version: %v\n%s", err, out)
	}
	const limit = 32 << 10 // the operation table itself is ~13 KB
	total := 0
	var heavy []string
	for _, l := range strings.Split(string(out), "\n") {
		// init github.com/sightline-lsp/sightline/ops @12 ms, 0.6 ms clock, 132088 bytes, 568 allocs
		f := strings.Fields(l)
		if len(f) < 11 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/sightline-lsp/sightline/") || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unexpected inittrace line %q", l)
		}
		total += n
		if n > 1<<10 {
			heavy = append(heavy, f[1]+" "+f[7]+" bytes")
		}
	}
	if total > limit {
		t.Errorf("sightline's packages allocate %d bytes at every start (at most %d): %s. Do what only some commands need on first use.", total, limit, strings.Join(heavy, ", "))
	}
}
