//go:build treesitter

package extract

import (
	"context"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// TreeSitter extracts declarations from a full parse. It reports the same
// set as Regex (top-level types and functions, members of classes, impls,
// traits and namespaces, nothing inside function bodies), which is what
// makes it the ground truth of the accuracy harness. Safe for concurrent
// use: each call has its own parser.
type TreeSitter struct {
	langs map[string]*sitter.Language
	tsx   *sitter.Language
}

// NewTreeSitter loads the grammars.
func NewTreeSitter() *TreeSitter {
	return &TreeSitter{
		langs: map[string]*sitter.Language{
			"go":         golang.GetLanguage(),
			"typescript": typescript.GetLanguage(),
			"javascript": javascript.GetLanguage(),
			"python":     python.GetLanguage(),
			"rust":       rust.GetLanguage(),
			"java":       java.GetLanguage(),
			"c":          c.GetLanguage(),
			"cpp":        cpp.GetLanguage(),
			"ruby":       ruby.GetLanguage(),
		},
		tsx: tsx.GetLanguage(),
	}
}

func newTreeSitter() (Extractor, error) { return NewTreeSitter(), nil }

func treeSitterAvailable() error { return nil }

// tsWalk holds one extraction's source and results.
type tsWalk struct {
	src   []byte
	lines []Line
	lang  string
	out   []Symbol
}

// Extract implements Extractor.
func (x *TreeSitter) Extract(lang string, lines []Line) []Symbol {
	syms, _ := x.extract(lang, lines)
	return syms
}

// ExtractFirst returns the first max+1 symbols (all when max <= 0), like
// Regex.ExtractFirst; tree-sitter parses the whole input regardless.
func (x *TreeSitter) ExtractFirst(lang string, lines []Line, max int) []Symbol {
	syms := x.Extract(lang, lines)
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].Start < syms[j].Start })
	if max > 0 && len(syms) > max+1 {
		syms = syms[:max+1]
	}
	return syms
}

// extract also reports whether the parse had errors (the accuracy harness
// takes no ground truth from such files).
func (x *TreeSitter) extract(lang string, lines []Line) ([]Symbol, bool) {
	gl := x.langs[lang]
	if gl == nil || len(lines) == 0 {
		return nil, false
	}
	var b strings.Builder
	for _, l := range lines {
		c := l.Content
		if k := len(c); k > 0 && c[k-1] == '\r' {
			c = c[:k-1]
		}
		b.WriteString(c)
		b.WriteByte('\n')
	}
	src := []byte(b.String())
	tree := parse(gl, src)
	if tree == nil {
		return nil, true
	}
	if lang == "typescript" && tree.RootNode().HasError() {
		// .tsx files come with the same language name: try JSX.
		if t2 := parse(x.tsx, src); t2 != nil {
			if !t2.RootNode().HasError() {
				tree.Close()
				tree = t2
			} else {
				t2.Close()
			}
		}
	}
	defer tree.Close()
	w := &tsWalk{src: src, lines: lines, lang: lang}
	root := tree.RootNode()
	switch lang {
	case "go":
		w.goFile(root)
	case "typescript", "javascript":
		w.jsBlock(root, "")
	case "python":
		w.pyBlock(root, "", false)
	case "rust":
		w.rustBlock(root, "", false)
	case "java":
		w.javaBody(root, "", false)
	case "c", "cpp":
		w.cBlock(root, "", false)
	case "ruby":
		w.rubyBody(root, "", false)
	}
	return w.out, root.HasError()
}

func parse(l *sitter.Language, src []byte) *sitter.Tree {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(l)
	t, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return nil
	}
	return t
}

// Helpers.

func (w *tsWalk) text(n *sitter.Node) string { return n.Content(w.src) }

func (w *tsWalk) lineNo(row uint32) int {
	if int(row) < len(w.lines) {
		return w.lines[row].N
	}
	return w.lines[len(w.lines)-1].N
}

// emit records a symbol whose name is the node name and whose span is decl.
func (w *tsWalk) emit(name string, nameNode, decl *sitter.Node, kind, container string) {
	row := nameNode.StartPoint().Row
	sig := ""
	if int(row) < len(w.lines) {
		sig = signature(strings.TrimSuffix(w.lines[row].Content, "\r"))
	}
	end := decl.EndPoint()
	endRow := end.Row
	if end.Column == 0 && endRow > row {
		endRow--
	}
	w.out = append(w.out, Symbol{Name: name, Kind: kind, Signature: sig, Start: w.lineNo(row), End: w.lineNo(endRow), Container: container})
}

func named(n *sitter.Node) []*sitter.Node {
	k := int(n.NamedChildCount())
	out := make([]*sitter.Node, 0, k)
	for i := 0; i < k; i++ {
		out = append(out, n.NamedChild(i))
	}
	return out
}

// Go.

func (w *tsWalk) goFile(root *sitter.Node) {
	for _, n := range named(root) {
		switch n.Type() {
		case "function_declaration":
			if nm := n.ChildByFieldName("name"); nm != nil {
				w.emit(w.text(nm), nm, n, "func", "")
			}
		case "method_declaration":
			nm := n.ChildByFieldName("name")
			if nm == nil {
				continue
			}
			recv := ""
			if r := n.ChildByFieldName("receiver"); r != nil {
				for _, p := range named(r) {
					if t := p.ChildByFieldName("type"); t != nil {
						recv = w.goBaseType(t)
						break
					}
				}
			}
			w.emit(w.text(nm), nm, n, "method", recv)
		case "type_declaration":
			for _, s := range named(n) {
				if s.Type() != "type_spec" && s.Type() != "type_alias" {
					continue
				}
				nm := s.ChildByFieldName("name")
				if nm == nil {
					continue
				}
				kind := "type"
				if t := s.ChildByFieldName("type"); t != nil && s.Type() == "type_spec" {
					switch t.Type() {
					case "struct_type":
						kind = "struct"
					case "interface_type":
						kind = "interface"
					}
				}
				w.emit(w.text(nm), nm, s, kind, "")
			}
		}
	}
}

func (w *tsWalk) goBaseType(t *sitter.Node) string {
	for t != nil {
		switch t.Type() {
		case "pointer_type", "parenthesized_type":
			t = t.NamedChild(0)
		case "generic_type":
			t = t.ChildByFieldName("type")
		default:
			return w.text(t)
		}
	}
	return ""
}

// JavaScript and TypeScript.

func (w *tsWalk) jsBlock(n *sitter.Node, container string) {
	for _, c := range named(n) {
		w.jsItem(c, container)
	}
}

func (w *tsWalk) jsItem(n *sitter.Node, container string) {
	switch n.Type() {
	case "export_statement":
		if d := n.ChildByFieldName("declaration"); d != nil {
			w.jsItem(d, container)
		} else if v := n.ChildByFieldName("value"); v != nil {
			switch v.Type() {
			case "function_expression", "function", "generator_function":
				w.jsNamed(v, "func", container, true)
			case "class":
				w.jsClass(v, container, true)
			}
		}
	case "function_declaration", "generator_function_declaration", "function_signature":
		w.jsNamed(n, "func", container, false)
	case "class_declaration", "abstract_class_declaration":
		w.jsClass(n, container, false)
	case "interface_declaration":
		w.jsNamed(n, "interface", container, false)
	case "type_alias_declaration":
		w.jsNamed(n, "type", container, false)
	case "enum_declaration":
		w.jsNamed(n, "enum", container, false)
	case "lexical_declaration", "variable_declaration":
		for _, d := range named(n) {
			if d.Type() != "variable_declarator" {
				continue
			}
			nm, v := d.ChildByFieldName("name"), d.ChildByFieldName("value")
			if nm == nil || v == nil || nm.Type() != "identifier" {
				continue
			}
			switch v.Type() {
			case "arrow_function", "function_expression", "function", "generator_function":
				w.emit(w.text(nm), nm, d, "func", container)
			}
		}
	case "expression_statement", "ambient_declaration":
		for _, c := range named(n) {
			if c.Type() == "statement_block" { // declare global { ... }
				w.jsBlock(c, container)
				continue
			}
			w.jsItem(c, container)
		}
	case "internal_module", "module":
		nm := n.ChildByFieldName("name")
		if nm == nil {
			return
		}
		name := w.text(nm)
		if nm.Type() == "string" {
			name = strings.Trim(name, `"'`)
		}
		w.emit(name, nm, n, "namespace", container)
		if b := n.ChildByFieldName("body"); b != nil {
			w.jsBlock(b, name)
		}
	}
}

func (w *tsWalk) jsNamed(n *sitter.Node, kind, container string, anonOK bool) {
	nm := n.ChildByFieldName("name")
	if nm == nil {
		if anonOK {
			w.emit("default", n, n, kind, container)
		}
		return
	}
	w.emit(w.text(nm), nm, n, kind, container)
}

func (w *tsWalk) jsClass(n *sitter.Node, container string, anonOK bool) {
	nm := n.ChildByFieldName("name")
	name := "default"
	if nm != nil {
		name = w.text(nm)
		w.emit(name, nm, n, "class", container)
	} else if anonOK {
		w.emit(name, n, n, "class", container)
	} else {
		return
	}
	body := n.ChildByFieldName("body")
	if body == nil {
		return
	}
	for _, m := range named(body) {
		switch m.Type() {
		case "method_definition", "method_signature", "abstract_method_signature":
			mn := m.ChildByFieldName("name")
			if mn == nil {
				continue
			}
			switch mn.Type() {
			case "property_identifier", "private_property_identifier", "identifier":
				w.emit(w.text(mn), mn, m, "method", name)
			}
		}
	}
}

// Python.

func (w *tsWalk) pyBlock(n *sitter.Node, container string, inClass bool) {
	for _, c := range named(n) {
		w.pyItem(c, container, inClass)
	}
}

func (w *tsWalk) pyItem(n *sitter.Node, container string, inClass bool) {
	switch n.Type() {
	case "decorated_definition":
		if d := n.ChildByFieldName("definition"); d != nil {
			w.pyItem(d, container, inClass)
		}
	case "function_definition":
		if nm := n.ChildByFieldName("name"); nm != nil {
			kind := "func"
			if inClass {
				kind = "method"
			}
			w.emit(w.text(nm), nm, n, kind, container)
		}
	case "class_definition":
		nm := n.ChildByFieldName("name")
		if nm == nil {
			return
		}
		name := w.text(nm)
		w.emit(name, nm, n, "class", container)
		if b := n.ChildByFieldName("body"); b != nil {
			w.pyBlock(b, name, true)
		}
	case "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause", "except_group_clause",
		"finally_clause", "with_statement", "for_statement", "while_statement", "block":
		// Compound statements outside functions: their defs belong to
		// the enclosing module or class.
		w.pyBlock(n, container, inClass)
	}
}

// Rust.

func (w *tsWalk) rustBlock(n *sitter.Node, container string, inImpl bool) {
	for _, c := range named(n) {
		w.rustItem(c, container, inImpl)
	}
}

func (w *tsWalk) rustItem(n *sitter.Node, container string, inImpl bool) {
	t := n.Type()
	if inImpl {
		if t == "function_item" || t == "function_signature_item" {
			if nm := n.ChildByFieldName("name"); nm != nil {
				w.emit(strings.TrimPrefix(w.text(nm), "r#"), nm, n, "method", container)
			}
		}
		return
	}
	switch t {
	case "impl_item":
		ty := n.ChildByFieldName("type")
		if ty == nil {
			return
		}
		name := w.rustBaseType(ty)
		w.emit(name, ty, n, "impl", container)
		if b := n.ChildByFieldName("body"); b != nil {
			w.rustBlock(b, name, true)
		}
	case "foreign_mod_item":
		if b := n.ChildByFieldName("body"); b != nil {
			w.rustBlock(b, container, false)
		}
	default:
		kind := rustKind(t)
		if kind == "" {
			return
		}
		nm := n.ChildByFieldName("name")
		if nm == nil {
			return
		}
		name := strings.TrimPrefix(w.text(nm), "r#")
		w.emit(name, nm, n, kind, container)
		if b := n.ChildByFieldName("body"); b != nil {
			switch t {
			case "trait_item":
				w.rustBlock(b, name, true)
			case "mod_item":
				w.rustBlock(b, name, false)
			}
		}
	}
}

// rustKind maps a Rust item node type to a symbol kind, or "".
func rustKind(t string) string {
	switch t {
	case "function_item", "function_signature_item":
		return "func"
	case "struct_item":
		return "struct"
	case "enum_item":
		return "enum"
	case "union_item":
		return "union"
	case "type_item":
		return "type"
	case "trait_item":
		return "trait"
	case "mod_item":
		return "module"
	case "macro_definition":
		return "macro"
	}
	return ""
}

func (w *tsWalk) rustBaseType(t *sitter.Node) string {
	for t != nil {
		switch t.Type() {
		case "generic_type", "reference_type", "pointer_type":
			t = t.ChildByFieldName("type")
		case "scoped_type_identifier":
			t = t.ChildByFieldName("name")
		case "dynamic_type", "abstract_type":
			t = t.ChildByFieldName("trait")
		case "type_identifier", "primitive_type":
			return w.text(t)
		default:
			return strings.Join(strings.Fields(w.text(t)), "")
		}
	}
	return ""
}

// Java.

func (w *tsWalk) javaBody(n *sitter.Node, container string, inType bool) {
	for _, c := range named(n) {
		switch t := c.Type(); t {
		case "class_declaration", "record_declaration", "interface_declaration", "enum_declaration", "annotation_type_declaration":
			nm := c.ChildByFieldName("name")
			if nm == nil {
				continue
			}
			name := w.text(nm)
			kind := "class"
			switch t {
			case "interface_declaration", "annotation_type_declaration":
				kind = "interface"
			case "enum_declaration":
				kind = "enum"
			}
			w.emit(name, nm, c, kind, container)
			if t == "annotation_type_declaration" {
				continue
			}
			if b := c.ChildByFieldName("body"); b != nil {
				if t == "enum_declaration" {
					for _, d := range named(b) {
						if d.Type() == "enum_body_declarations" {
							w.javaBody(d, name, true)
						}
					}
					continue
				}
				w.javaBody(b, name, true)
			}
		case "method_declaration", "constructor_declaration":
			if !inType {
				continue
			}
			if nm := c.ChildByFieldName("name"); nm != nil {
				w.emit(w.text(nm), nm, c, "method", container)
			}
		}
	}
}

// C and C++.

func (w *tsWalk) cBlock(n *sitter.Node, container string, inClass bool) {
	for _, c := range named(n) {
		w.cItem(c, container, inClass)
	}
}

func (w *tsWalk) cItem(n *sitter.Node, container string, inClass bool) {
	cpp := w.lang == "cpp"
	switch n.Type() {
	case "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef":
		w.cBlock(n, container, inClass)
	case "template_declaration":
		for _, c := range named(n) {
			if c.Type() != "template_parameter_list" {
				w.cItem(c, container, inClass)
			}
		}
	case "linkage_specification":
		if b := n.ChildByFieldName("body"); b != nil {
			if b.Type() == "declaration_list" {
				w.cBlock(b, container, inClass)
			} else {
				w.cItem(b, container, inClass)
			}
		}
	case "namespace_definition":
		name := container
		if nm := n.ChildByFieldName("name"); nm != nil {
			name = w.text(nm)
			w.emit(name, nm, n, "namespace", container)
		}
		if b := n.ChildByFieldName("body"); b != nil {
			w.cBlock(b, name, false)
		}
	case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
		w.cTagged(n, container)
	case "function_definition":
		w.cFunc(n, n, container, inClass, true)
	case "declaration", "field_declaration":
		if t := n.ChildByFieldName("type"); t != nil {
			w.cTagged(t, container)
		}
		if inClass {
			w.cFunc(n, n, container, true, false)
		}
	case "type_definition":
		if t := n.ChildByFieldName("type"); t != nil {
			w.cTagged(t, container)
		}
		if d := n.ChildByFieldName("declarator"); d != nil {
			if id := cTypedefName(d); id != nil {
				w.emit(w.text(id), id, id, "type", container)
			}
		}
	case "alias_declaration":
		if nm := n.ChildByFieldName("name"); nm != nil && cpp {
			w.emit(w.text(nm), nm, n, "type", container)
		}
	}
}

// cTagged reports a struct, union, enum or class with a name and a body,
// and in C++ the members of its body.
func (w *tsWalk) cTagged(n *sitter.Node, container string) {
	kind := strings.TrimSuffix(n.Type(), "_specifier")
	switch kind {
	case "struct", "union", "enum", "class":
	default:
		return
	}
	nm, body := n.ChildByFieldName("name"), n.ChildByFieldName("body")
	if nm == nil || body == nil {
		return
	}
	name := w.text(nm)
	if nm.Type() == "qualified_identifier" {
		if x := nm.ChildByFieldName("name"); x != nil {
			name = w.text(x)
		}
	} else if nm.Type() == "template_type" {
		if x := nm.ChildByFieldName("name"); x != nil {
			name = w.text(x)
		}
	}
	w.emit(name, nm, n, kind, container)
	if w.lang == "cpp" && kind != "enum" {
		w.cBlock(body, name, true)
	}
}

// cTypedefName finds the identifier a typedef declarator names.
func cTypedefName(d *sitter.Node) *sitter.Node {
	for d != nil {
		switch d.Type() {
		case "type_identifier", "primitive_type":
			return d
		case "pointer_declarator", "array_declarator", "function_declarator", "parenthesized_declarator", "reference_declarator":
			if x := d.ChildByFieldName("declarator"); x != nil {
				d = x
				continue
			}
			d = d.NamedChild(0)
		default:
			return nil
		}
	}
	return nil
}

// cFunc reports a function definition, or in a class a member function
// declaration.
func (w *tsWalk) cFunc(n, decl *sitter.Node, container string, inClass, isDef bool) {
	d := n.ChildByFieldName("declarator")
	// Unwrap pointers and references to the function declarator.
	for d != nil && d.Type() != "function_declarator" {
		switch d.Type() {
		case "pointer_declarator", "reference_declarator":
			x := d.ChildByFieldName("declarator")
			if x == nil {
				x = d.NamedChild(int(d.NamedChildCount()) - 1)
			}
			d = x
		default:
			d = nil
		}
	}
	if d == nil {
		return
	}
	id := d.ChildByFieldName("declarator")
	if id == nil {
		return
	}
	qual := ""
	for id.Type() == "qualified_identifier" {
		if s := id.ChildByFieldName("scope"); s != nil {
			qual = w.text(s)
			if s.Type() == "template_type" {
				if x := s.ChildByFieldName("name"); x != nil {
					qual = w.text(x)
				}
			}
			if k := strings.LastIndex(qual, "::"); k >= 0 {
				qual = qual[k+2:]
			}
		}
		x := id.ChildByFieldName("name")
		if x == nil {
			return
		}
		id = x
	}
	if id.Type() == "template_function" {
		if x := id.ChildByFieldName("name"); x != nil {
			id = x
		}
	}
	var name string
	switch id.Type() {
	case "identifier", "field_identifier":
		name = w.text(id)
	case "destructor_name":
		name = strings.ReplaceAll(w.text(id), " ", "")
	case "operator_name":
		name = strings.Join(strings.Fields(w.text(id)), "")
		op := strings.TrimPrefix(name, "operator")
		if op == "" || isIdentByte(op[0]) {
			return // operator new, conversions
		}
	default:
		return
	}
	kind, cont := "func", container
	if qual != "" {
		kind, cont = "method", qual
	} else if inClass {
		kind = "method"
	}
	w.emit(name, id, decl, kind, cont)
}

// Ruby.

func (w *tsWalk) rubyBody(n *sitter.Node, container string, inClass bool) {
	for _, c := range named(n) {
		switch c.Type() {
		case "class", "module":
			nm := c.ChildByFieldName("name")
			if nm == nil {
				continue
			}
			name := strings.TrimPrefix(w.text(nm), "::")
			w.emit(name, nm, c, c.Type(), container)
			if b := c.ChildByFieldName("body"); b != nil {
				w.rubyBody(b, name, true)
			}
		case "singleton_class":
			// class << self: the enclosing class's methods; class << Gem: Gem's.
			cont, in := container, inClass
			if v := c.ChildByFieldName("value"); v != nil && v.Type() != "self" {
				cont, in = w.text(v), true
			}
			if b := c.ChildByFieldName("body"); b != nil {
				w.rubyBody(b, cont, in)
			}
		case "method", "singleton_method":
			nm := c.ChildByFieldName("name")
			if nm == nil {
				continue
			}
			kind := "func"
			if inClass {
				kind = "method"
			}
			w.emit(w.text(nm), nm, c, kind, container)
		case "body_statement", "if", "unless", "begin", "then", "else", "elsif", "ensure", "rescue", "case", "when":
			// Conditional definitions outside methods belong to the
			// enclosing class or file.
			w.rubyBody(c, container, inClass)
		}
	}
}
