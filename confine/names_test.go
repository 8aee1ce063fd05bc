package confine

import (
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/result"
)

// Names Windows gives to devices, or changes, are refused there with their
// reason; elsewhere they are ordinary names.
func TestWindowsNames(t *testing.T) {
	for name, bad := range map[string]bool{
		"CON": true, "con": true, "nul.txt": true, "NUL.tar.gz": true, "COM1": true, "lpt9.log": true,
		"aux ": true, "prn.": true, "CONIN$": true, "COM¹": true, "x.": true, "x ": true,
		"a:b": true, "a?b": true, "a*b": true, "a|b": true, `a"b`: true, "a<b": true, "a>b": true, "a\x01b": true,
		"CONSOLE": false, "nul_": false, "COM": false, "COM10": false, "x.txt": false, "con-fig": false, ".x": false,
	} {
		if got := windowsNameProblem(name) != ""; got != bad {
			t.Errorf("windowsNameProblem(%q) refused %v, want %v", name, got, bad)
		}
	}
	r, _, _ := setup(t)
	for _, rel := range []string{"CON", "a/nul.txt", "a/COM1/x.txt", "a/x.txt:stream"} {
		_, err := r.Resolve(rel, Write)
		if runtime.GOOS != "windows" {
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			}
			continue
		}
		if result.KindOf(err) != result.InvalidParams || !strings.Contains(err.Error(), "Windows") {
			t.Errorf("%s: %v (%s), want invalid_params naming Windows' rule", rel, err, result.KindOf(err))
		}
	}
}
