package workspace

import (
	"runtime"
	"testing"
)

func TestNormalize(t *testing.T) {
	same := [][]string{
		{"file:///home/u/a%20b.go", "file:///home/u/a b.go", "FILE:///home/u/./a%20b.go", "file://localhost/home/u/a%20b.go"},
		{"file:///c%3A/x/y.go", "file:///C:/x/y.go", "file:///c:/x/y.go"},
		{"file:///home/u/%40scope/x.ts", "file:///home/u/@scope/x.ts"},
		{"file:///home/u/d%C3%A9j%C3%A0.go", "file:///home/u/déjà.go"},
	}
	for _, group := range same {
		want, err := Normalize(group[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range group[1:] {
			got, err := Normalize(raw)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", raw, err)
			}
			if got != want {
				t.Errorf("Normalize(%q) = %q, want %q", raw, got, want)
			}
		}
	}
	for _, raw := range []string{"untitled:Untitled-1", "git:/a/b.go?%7B%7D", "vscode-notebook-cell:/x.ipynb#W0"} {
		k, err := Normalize(raw)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", raw, err)
		}
		if k.IsFile() {
			t.Errorf("%q is not a file", raw)
		}
		if _, ok := k.Path(); ok {
			t.Errorf("%q has no path", raw)
		}
	}
	for _, bad := range []string{"", "relative/path.go", "%zz:"} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%q) succeeded", bad)
		}
	}
}

func TestKeyPathRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("posix paths")
	}
	for _, p := range []string{"/tmp/a b/c#d?.go", "/x/%41.go", "/déjà/vu.py", "/"} {
		k := FromPath(p)
		got, ok := k.Path()
		if !ok || got != p {
			t.Errorf("FromPath(%q).Path() = %q, %v", p, got, ok)
		}
		k2, err := Normalize(string(k))
		if err != nil || k2 != k {
			t.Errorf("Normalize(FromPath(%q)) = %q, %v; want %q", p, k2, err, k)
		}
	}
}
