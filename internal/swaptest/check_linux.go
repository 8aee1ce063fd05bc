package swaptest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// GitConfig is the .git/config a race plants (with .git/hooks/sample as the
// only hook): a write that reached .git shows in GitUnchanged.
const GitConfig = "[core]\n\trepositoryformatversion = 0\n# GIT-CONFIG-MARKER\n"

// GitUnchanged reports a write that reached root's .git (its config
// rewritten, a file created in .git/hooks) and undoes it, so the race goes
// on from a clean .git.
func GitUnchanged(root string) error {
	if b, err := os.ReadFile(filepath.Join(root, ".git/config")); err != nil || string(b) != GitConfig {
		os.WriteFile(filepath.Join(root, ".git/config"), []byte(GitConfig), 0o644)
		return fmt.Errorf(".git/config was rewritten: %q", b)
	}
	ents, _ := os.ReadDir(filepath.Join(root, ".git/hooks"))
	for _, e := range ents {
		if e.Name() != "sample" {
			os.Remove(filepath.Join(root, ".git/hooks", e.Name()))
			return fmt.Errorf("%s was created in .git/hooks", e.Name())
		}
	}
	return nil
}

// ReadAt reads name relative to the open folder dir: the folder itself,
// whatever it is called at the moment (false: no such file).
func ReadAt(dir *os.File, name string) (string, bool) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String(), true
		}
	}
}

// Budget bounds a race by tries and wall time, whichever ends first:
// tries and d unless SIGHTLINE_RACE_SECONDS=N asks for N seconds with no
// bound on tries (a long run, by hand).
func Budget(tb testing.TB, tries int, d time.Duration) (int, time.Duration) {
	v := os.Getenv("SIGHTLINE_RACE_SECONDS")
	if v == "" {
		return tries, d
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("SIGHTLINE_RACE_SECONDS=%q: want a number of seconds", v)
	}
	return math.MaxInt, time.Duration(n) * time.Second
}
