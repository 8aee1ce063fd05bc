//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Through the daemon the answers are the same as in the command's own
// process: the bad key named, the policy that cannot be read refusing.
func TestDaemonConfigProblems(t *testing.T) {
	c, sockDir := daemonCLI(t, map[string]string{"a.txt": "one\n", "lib/x.py": "secret = 1\n", ".sightline.json": `{"policy":{"deny":["lib/**"]},"readBudget":"24k"}`})
	c = c.withUserConfig(t, "")
	off := c.withEnv("SIGHTLINE_DAEMON=0", "SIGHTLINE_NO_BRIDGE=1")
	startDaemon(t, c, sockDir)
	for _, file := range []string{`{"policy":{"deny":["lib/**"]},"readBudget":"24k"}`, `{"policy":{"deny":"lib/**"}}`} {
		if err := os.WriteFile(filepath.Join(c.dir, ".sightline.json"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"a.txt", "lib/x.py"} {
			out, errs, code := c.run("", "read", path)
			want, wantErrs, wantCode := off.run("", "read", path)
			if out != want || errs != wantErrs || code != wantCode || !strings.Contains(errs, ".sightline.json") {
				t.Fatalf("%s, read %s through the daemon (%d):\n%s%s\non disk (%d):\n%s%s", file, path, code, out, errs, wantCode, want, wantErrs)
			}
		}
	}
}
