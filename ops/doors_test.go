package ops_test

import (
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/ops"
)

const module = "github.com/sightline-lsp/sightline/"

// doors are the packages through which sightline is offered. They are
// siblings: each is derived from the table (through package route, or a
// host's engine), none from another.
var doors = []string{"acp", "hook", "mcptools", "server", "daemon", "cmd/sightline"}

// starts are the files of cmd/sightline, the binary that assembles the
// doors, allowed to import a door: those that start it, or manage it (the
// daemon's commands, its start after a command ran on disk). No other
// command calls a door's code.
var starts = map[string][]string{
	"acp":      {"acp.go"},
	"hook":     {"hook.go"},
	"mcptools": {"mcp.go"},
	"server":   {"serve.go"},
	"daemon":   {"daemoncmd.go", "daemonlist.go", "notice.go", "router.go"},
}

// hosts are the doors that hold an engine and serve the table over it;
// the others hold none and call the operations through a router
// (route.Router, judge.Router). A host calls no function of the engine
// but these: it assembles its engine; the language server also sends the
// editor what changed of a document's coverage, which is no operation but
// its own publishing. (A call's approver is the table's: ops.Call.)
var hosts = map[string][]string{
	"server": {"Setup", "CoverageChange"},
	"daemon": {"Setup"},
}

type listed struct {
	Dir, ImportPath, Export string
	GoFiles, Imports        []string
}

func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", append([]string{"list", "-json=Dir,ImportPath,Export,GoFiles,Imports"}, args...)...)
	cmd.Dir = ".."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var ps []listed
	for d := json.NewDecoder(strings.NewReader(string(out))); ; {
		var p listed
		if err := d.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestDoorsImportNoDoor: no door imports another (gopls's rule of layers:
// what two doors share lives below them, in judge, route or ops), but for
// cmd/sightline's files that start one; judge, route and ops import no
// door, and ops neither the router nor the socket; and bridge, the
// socket, knows no operation: it imports neither the table nor the
// engine, and names no operation's method.
func TestDoorsImportNoDoor(t *testing.T) {
	args := []string{"./bridge", "./ops", "./judge", "./route"}
	for _, d := range doors {
		args = append(args, "./"+d)
	}
	for _, p := range goList(t, args...) {
		name := strings.TrimPrefix(p.ImportPath, module)
		switch name {
		case "bridge":
			bridgeKnowsNoOperation(t, p)
			continue
		case "ops", "judge", "route":
			// Below the doors: the table knows no transport, and what
			// the doors share imports none of them.
			for _, imp := range p.Imports {
				if below := strings.TrimPrefix(imp, module); slices.Contains(doors, below) || name == "ops" && slices.Contains([]string{"bridge", "route", "judge"}, below) {
					t.Errorf("%s imports %s: it lies below the doors", name, imp)
				}
			}
			continue
		}
		fset := token.NewFileSet()
		for _, f := range p.GoFiles {
			file, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, is := range file.Imports {
				imp, _ := strconv.Unquote(is.Path.Value)
				door := strings.TrimPrefix(imp, module)
				if door == imp || door == name || !slices.Contains(doors, door) {
					continue
				}
				if name == "cmd/sightline" && slices.Contains(starts[door], f) {
					continue
				}
				t.Errorf("%s/%s imports the door %s: doors are siblings; move what they share below them", name, f, door)
			}
		}
	}
}

// bridgeKnowsNoOperation: the socket imports neither the table nor the
// engine, and names no operation's method.
func bridgeKnowsNoOperation(t *testing.T, p listed) {
	for _, imp := range p.Imports {
		if slices.Contains([]string{"ops", "engine", "route", "workspace", "ledger"}, strings.TrimPrefix(imp, module)) {
			t.Errorf("bridge imports %s: the socket knows no operation", imp)
		}
	}
	methods := []string{ops.MethodBlockRun}
	for _, op := range ops.Table() {
		methods = append(methods, op.Method())
	}
	fset := token.NewFileSet()
	for _, f := range p.GoFiles {
		file, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, _ := strconv.Unquote(lit.Value); slices.Contains(methods, v) {
					t.Errorf("%s: bridge names the operation %s: the socket knows no operation", fset.Position(lit.Pos()), v)
				}
			}
			return true
		})
	}
}

// TestDoorsSpeakTheTable: a door names the engine's types and constants,
// the table's vocabulary (its params and results, their parts, the
// approval question an operation may ask); never a variable of the
// engine, nor a function but a host's (hosts). A door that holds no
// engine (judge's code is theirs) names neither engine.Env nor a method
// of it: what it runs, it runs as an operation through its router.
func TestDoorsSpeakTheTable(t *testing.T) {
	var args []string
	for _, d := range append(slices.Clone(doors), "judge") {
		args = append(args, "./"+d)
	}
	exports := map[string]string{}
	for _, p := range goList(t, append([]string{"-export", "-deps"}, args...)...) {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	for _, p := range goList(t, args...) {
		var files []*ast.File
		for _, f := range p.GoFiles {
			file, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		funcs, host := hosts[name]
		for id, obj := range info.Uses {
			if obj.Pkg() == nil || obj.Pkg().Path() != module+"engine" {
				continue
			}
			if why := beyondTable(obj, host, funcs); why != "" {
				t.Errorf("%s: %s uses %s: run it as an operation of the table", fset.Position(id.Pos()), name, why)
			}
		}
	}
}

// beyondTable names an engine object a door uses when it is more than
// the table's vocabulary (and, for a host, its engine and the functions
// it may call).
func beyondTable(obj types.Object, host bool, funcs []string) string {
	switch o := obj.(type) {
	case *types.TypeName:
		if o.Name() == "Env" && !host {
			return "the engine itself, engine.Env"
		}
	case *types.Var:
		if !o.IsField() {
			return "the variable engine." + o.Name()
		}
	case *types.Func:
		recv := o.Signature().Recv()
		if recv == nil {
			if slices.Contains(funcs, o.Name()) {
				return ""
			}
			return "the function engine." + o.Name()
		}
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok && n.Obj().Name() == "Env" && !host {
			return "the engine's method Env." + o.Name()
		}
	}
	return ""
}
