package extract

import (
	"slices"
	"strings"
	"testing"
)

func lines(src string) []Line {
	var ls []Line
	for i, l := range strings.Split(src, "\n") {
		ls = append(ls, Line{N: i + 1, Content: l})
	}
	return ls
}

const pySrc = "import os\n\nclass Outer:\n    \"\"\"doc\"\"\"\n    class Inner:\n        def m(self):\n            pass\n\n    # f does.\n    @dec\n    def f(self):\n        return 1\n\ndef top():\n    pass\n\ndef m():\n    pass\n"

func TestQualifyAndFind(t *testing.T) {
	syms := NewRegex().Extract("python", lines(pySrc))
	q := Qualify(syms)
	want := []string{"Outer", "Outer.Inner", "Outer.Inner.m", "Outer.f", "top", "m"}
	if !slices.Equal(q, want) {
		t.Fatalf("Qualify = %q, want %q", q, want)
	}
	names := func(is []int) []string {
		var out []string
		for _, i := range is {
			out = append(out, q[i])
		}
		return out
	}
	for _, c := range []struct {
		name          string
		match, nearby []string
	}{
		{"Outer.Inner", []string{"Outer.Inner"}, nil},
		{"Inner.m", []string{"Outer.Inner.m"}, nil},
		{"f", []string{"Outer.f"}, nil},
		{"m", []string{"m"}, nil}, // the exact name wins over Outer.Inner.m
		{"tpo", nil, []string{"top"}},
		{"zzzzzzzz", nil, nil},
	} {
		m, n := Find(syms, q, c.name)
		if !slices.Equal(names(m), c.match) || !slices.Equal(names(n), c.nearby) {
			t.Errorf("Find(%q) = %q, nearest %q; want %q, %q", c.name, names(m), names(n), c.match, c.nearby)
		}
	}
}

func TestFindSeveral(t *testing.T) {
	src := "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        pass\n"
	syms := NewRegex().Extract("python", lines(src))
	m, _ := Find(syms, Qualify(syms), "run")
	if len(m) != 2 {
		t.Fatalf("Find(run) = %v, want both methods", m)
	}
}

func TestSpanTakesDocAndDecorators(t *testing.T) {
	ls := lines(pySrc)
	syms := NewRegex().Extract("python", ls)
	line := func(n int) string { return ls[n-1].Content }
	i, _ := Find(syms, Qualify(syms), "f")
	if s, e := Span("python", syms[i[0]], line); s != 9 || e != 12 {
		t.Errorf("Span(f) = %d-%d, want 9-12 (comment, decorator, body)", s, e)
	}
	goSrc := lines("package p\n\nimport \"x\"\n// T is.\n// More.\ntype T struct {\n\tx int\n}\n")
	gs := NewRegex().Extract("go", goSrc)
	if s, e := Span("go", gs[0], func(n int) string { return goSrc[n-1].Content }); s != 4 || e != 8 {
		t.Errorf("Span(T) = %d-%d, want 4-8", s, e)
	}
	cSrc := lines("#include <x.h>\nint main(void) {\n}\n")
	cs := NewRegex().Extract("c", cSrc)
	if s, _ := Span("c", cs[0], func(n int) string { return cSrc[n-1].Content }); s != 2 {
		t.Errorf("Span(main) starts at %d, want 2: a preprocessor line is no comment", s)
	}
}
