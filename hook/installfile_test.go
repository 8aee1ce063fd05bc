package hook_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hook"
)

// symlink makes a link, or skips the test where links cannot be made.
func symlink(t *testing.T, dest, link string) {
	t.Helper()
	if err := os.Symlink(dest, link); err != nil {
		t.Skipf("this system makes no symbolic links for this process (%v)", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Skip("this system answers success to making a symbolic link but makes none (Wine)")
	}
}

// install installs Claude Code's hooks in the settings file at path as the
// CLI does.
func install(path string) error {
	s, err := hook.ReadSettings(path)
	if err != nil {
		return err
	}
	out, _, err := hook.Install(s.Data, "claude", "/x/sightline hook claude", hook.ClaudeHooks)
	if err != nil {
		return err
	}
	return s.Write(out)
}

// TestInstallFileThroughALink: settings linked from a dotfiles folder
// stay a link, and the file it names gets the hooks, its mode kept.
func TestInstallFileThroughALink(t *testing.T) {
	home := t.TempDir()
	dot := filepath.Join(home, "dotfiles", "claude.json")
	os.MkdirAll(filepath.Dir(dot), 0o755)
	if err := os.WriteFile(dot, []byte(`{"model": "opus"}`), 0o640); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	symlink(t, filepath.Join("..", "dotfiles", "claude.json"), settings)
	if err := install(settings); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(settings); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v %v", fi.Mode(), err)
	}
	b, err := os.ReadFile(dot)
	if err != nil || !strings.Contains(string(b), "sightline hook claude") || !strings.Contains(string(b), `"model": "opus"`) {
		t.Fatalf("the linked file (%v):\n%s", err, b)
	}
	if fi, _ := os.Stat(dot); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if names, _ := os.ReadDir(filepath.Dir(dot)); len(names) != 1 {
		t.Fatalf("left beside it: %v", names)
	}
}

// TestInstallFileKeepsTheMode: a private settings file stays private; a
// new one (in a new folder) is made.
func TestInstallFileKeepsTheMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := install(path); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	fresh := filepath.Join(dir, "new", ".claude", "settings.json")
	if err := install(fresh); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(fresh); err != nil || !strings.Contains(string(b), "sightline hook claude") {
		t.Fatalf("%v:\n%s", err, b)
	}
}

// TestInstallFileRefusesReadOnly: a settings file without write
// permission is not replaced.
func TestInstallFileRefusesReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte("{}\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, 0o644) })
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o200 != 0 {
		t.Skipf("this system makes no read-only file (%v)", err)
	}
	err := install(path)
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("installed in a read-only file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{}\n" {
		t.Fatalf("changed: %s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm()&0o200 != 0 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

// TestInstallFileRefusesWhatIsNoFile: a folder where the file should be,
// and a link to nothing, are refused with what to do, and left as they
// were.
func TestInstallFileRefusesWhatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "settings.json")
	os.Mkdir(folder, 0o755)
	if err := install(folder); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("a folder: %v", err)
	}
	dangling := filepath.Join(dir, "hooks.json")
	symlink(t, filepath.Join(dir, "nowhere", "hooks.json"), dangling)
	if err := install(dangling); err == nil || !strings.Contains(err.Error(), "which does not exist") {
		t.Fatalf("a dangling link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Fatal("the link's folder was made")
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v", err)
	}
}

// TestInstallFileChangedMeanwhile: settings the agent wrote between the
// read and the write are not overwritten.
func TestInstallFileChangedMeanwhile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{}\n"), 0o644)
	s, err := hook.ReadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(`{"model": "new"}`), 0o644)
	if err := s.Write([]byte("{}")); err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("overwrote: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"model": "new"}` {
		t.Fatalf("changed: %s", b)
	}
}
