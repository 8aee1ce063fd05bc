// Package testarchive reads the test corpora's archives: txtar files whose
// comment holds "key: value" lines and whose `-- name --` lines start each
// file; a name ending in " noeol" is its text without the final newline
// (which txtar cannot say).
package testarchive

import (
	"fmt"
	"os"
	"strings"
)

// Read returns an archive's comment keys and its files by name.
func Read(path string) (meta, files map[string]string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("test archive: %w", err)
	}
	meta, files = map[string]string{}, map[string]string{}
	name := ""
	var cur strings.Builder
	flush := func() {
		if name == "" {
			return
		}
		text := cur.String()
		if n, ok := strings.CutSuffix(name, " noeol"); ok {
			name, text = n, strings.TrimSuffix(text, "\n")
		}
		files[name] = text
	}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "-- "); ok && strings.HasSuffix(h, " --") {
			flush()
			name = strings.TrimSuffix(h, " --")
			cur.Reset()
			continue
		}
		if name == "" {
			if k, v, ok := strings.Cut(strings.TrimRight(line, "\n"), ": "); ok {
				meta[k] = v
			}
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return meta, files, nil
}
