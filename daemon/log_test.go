package daemon

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestLogIsBounded: the log past its limit moves to .1, replacing the
// older one: the two files never hold much more than twice the limit.
func TestLogIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), LogName)
	l, err := OpenLog(p, 1000)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("x"), 99)
	line = append(line, '\n')
	for range 100 {
		if _, err := l.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, p + ".1"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 1000 || fi.Size() == 0 {
			t.Errorf("%s: %d bytes", f, fi.Size())
		}
	}
	if _, err := os.Stat(p + ".2"); !os.IsNotExist(err) {
		t.Errorf("more than one old log: %v", err)
	}
	// Reopened, it continues the file and keeps its bound.
	l, err = OpenLog(p, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for range 20 {
		l.Write(line)
	}
	if fi, _ := os.Stat(p); fi.Size() > 1000 {
		t.Errorf("reopened: %d bytes", fi.Size())
	}
}
