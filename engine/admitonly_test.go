package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAdmissionIsOneFunction: a document is reached only through admit,
// the admission step. The steps it is made of (judging a name, asking for
// approval, judging the file, loading the text) are called by admit alone,
// so no feature can load a document or skip an approval by calling one of
// them itself; a feature that needs less names it as an access.
func TestAdmissionIsOneFunction(t *testing.T) {
	allowed := map[string][]string{ // callee: the functions that may call it
		"judge":     {"admit"},
		"approve":   {"admit", "admitFile"},
		"admitFile": {"admit"},
		"load":      {"admit"},
		"WS.Get":    {"load"},
		"WS.GetAt":  {"load"},
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				callee := sel.Sel.Name
				if x, ok := sel.X.(*ast.SelectorExpr); ok && x.Sel.Name == "WS" {
					callee = "WS." + callee
				}
				if callers, ok := allowed[callee]; ok && !slices.Contains(callers, fn.Name.Name) {
					t.Errorf("%s: %s calls %s: a document is reached through admit alone (give it an access instead)", fset.Position(call.Pos()), fn.Name.Name, callee)
				}
				return true
			})
		}
	}
}
