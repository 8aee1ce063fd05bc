package daemon

import (
	"bytes"
	"os"
	"strconv"
)

// residentMemory is the process's resident set in bytes (VmRSS), what
// `ps` and a user's monitor show; 0 when unknown.
func residentMemory() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(string(f[0]), 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
