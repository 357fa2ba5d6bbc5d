// Package generate makes mutants mechanically from the implementation's
// source, as mature mutation tools do, instead of by hand: conditions
// negated, comparison operators moved, && and || swapped, a call dropped, a
// returned error or bool dropped or negated, an integer constant changed.
// Only statements a full run covers are mutated (hack/coverage), and each
// mutant runs only the specs that cover its statement.
//
// Every mutant of a sample is compiled into one build (mutant schemata):
// each site becomes a switch on the mutant's number, read once from
// MutantEnv, so the build costs one compile and a mutant costs only its
// focused run.
package generate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// MutantEnv selects the active mutant of a schemata build by number; unset
// or 0, the build behaves as the pinned source.
const MutantEnv = "ADMISSION_CONFORMANCE_MUTANT"

// Operator names a kind of mechanical mutation.
type Operator string

// The operators.
const (
	NegateCondition Operator = "negate-condition" // if c  ->  if !c
	Comparison      Operator = "comparison"       // < <= > >= == != moved
	Logical         Operator = "logical"          // && <-> ||
	DropCall        Operator = "drop-call"        // f(x) as a statement, not called
	DropError       Operator = "drop-error"       // return ..., err  ->  return ..., nil
	NegateReturn    Operator = "negate-return"    // return b  ->  return !b (bool functions)
	Constant        Operator = "constant"         // 0->1, 1->0, n->n+1 (integers)
)

// Operators lists them all.
var Operators = []Operator{NegateCondition, Comparison, Logical, DropCall, DropError, NegateReturn, Constant}

// Site is one place a mutant can be made.
type Site struct {
	// File is the file's import path form (as coverage profiles name it).
	File string `json:"file"`
	// Line and Col locate the mutated node.
	Line int `json:"line"`
	Col  int `json:"col"`
	// Operator is the mutation.
	Operator Operator `json:"operator"`
	// Func is the enclosing top-level function.
	Func string `json:"func"`
	// Original and Mutated are the node's source before and after, for the
	// table (the build uses the schemata form).
	Original string `json:"original"`
	Mutated  string `json:"mutated"`
	// start and end are byte offsets of the node in the file; schema is the
	// replacement with %d for the mutant's number.
	start, end int
	schema     string
}

// Key identifies a site within the pinned sources.
func (s Site) Key() string {
	return fmt.Sprintf("%s:%d.%d:%s", s.File, s.Line, s.Col, s.Operator)
}

// Offsets are the byte range the site replaces.
func (s Site) Offsets() (start, end int) { return s.start, s.end }

// CoveredAt reports whether a line.column lies in a covered block.
type CoveredAt func(line, col int) bool

// FileSites finds the sites of one parsed, type-checked file whose node
// starts in a covered block. name is the file's profile name; src its
// bytes; pkg and info the package's types.
func FileSites(name string, fset *token.FileSet, f *ast.File, src []byte, pkg *types.Package, info *types.Info, covered CoveredAt) []Site {
	v := &visitor{name: name, fset: fset, file: f, src: src, pkg: pkg, info: info, covered: covered}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		v.fn = funcName(fd)
		v.walk(fd.Body, []ast.Node{fd})
	}
	sort.Slice(v.sites, func(i, j int) bool { return v.sites[i].start < v.sites[j].start })
	return v.sites
}

type visitor struct {
	name    string
	fset    *token.FileSet
	file    *ast.File
	src     []byte
	pkg     *types.Package
	info    *types.Info
	covered CoveredAt
	fn      string
	sites   []Site
}

// walk visits n with its ancestors (innermost last).
func (v *visitor) walk(n ast.Node, stack []ast.Node) {
	if n == nil {
		return
	}
	v.visit(n, stack)
	stack = append(stack, n)
	ast.Inspect(n, func(c ast.Node) bool {
		if c == nil || c == n {
			return c == n
		}
		v.walk(c, stack)
		return false
	})
}

func (v *visitor) text(n ast.Node) string {
	return string(v.src[v.fset.Position(n.Pos()).Offset:v.fset.Position(n.End()).Offset])
}

func (v *visitor) add(n ast.Node, op Operator, mutated, schema string) {
	p := v.fset.Position(n.Pos())
	if !v.covered(p.Line, p.Column) {
		return
	}
	v.sites = append(v.sites, Site{File: v.name, Line: p.Line, Col: p.Column, Operator: op, Func: v.fn,
		Original: oneLine(v.text(n)), Mutated: oneLine(mutated),
		start: p.Offset, end: v.fset.Position(n.End()).Offset, schema: schema})
}

func (v *visitor) visit(n ast.Node, stack []ast.Node) {
	switch x := n.(type) {
	case *ast.IfStmt:
		if v.isBool(x.Cond) {
			c := v.text(x.Cond)
			v.add(x.Cond, NegateCondition, "!("+c+")", "(("+lit(c)+") != acMutant(%d))")
		}
	case *ast.BinaryExpr:
		v.binary(x, stack)
	case *ast.BlockStmt:
		v.statements(x.List)
	case *ast.CaseClause:
		v.statements(x.Body)
	case *ast.CommClause:
		v.statements(x.Body)
	case *ast.ReturnStmt:
		v.ret(x, stack)
	case *ast.BasicLit:
		v.constant(x, stack)
	}
}

var swapped = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL, token.LAND: token.LOR, token.LOR: token.LAND,
}

func (v *visitor) binary(x *ast.BinaryExpr, stack []ast.Node) {
	to, ok := swapped[x.Op]
	if !ok || inConstantContext(stack, x) || v.isConstant(x) {
		return
	}
	l, r := v.text(x.X), v.text(x.Y)
	op := Comparison
	if x.Op == token.LAND || x.Op == token.LOR {
		op = Logical
		if !v.isBool(x.X) || !v.isBool(x.Y) {
			return
		}
	}
	mutated := "(" + lit(l) + ") " + to.String() + " (" + lit(r) + ")"
	orig := "(" + lit(l) + ") " + x.Op.String() + " (" + lit(r) + ")"
	// Short-circuit: only the chosen side is evaluated, once.
	v.add(x, op, l+" "+to.String()+" "+r, "(acMutant(%[1]d) && ("+mutated+") || !acMutant(%[1]d) && ("+orig+"))")
}

// statements offers every call statement of a statement list to be dropped.
func (v *visitor) statements(list []ast.Stmt) {
	for _, s := range list {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok || !v.droppable(call) {
			continue
		}
		c := v.text(es)
		v.add(es, DropCall, "/* dropped */", "if !acMutant(%d) { "+lit(c)+" }")
	}
}

// droppable leaves out calls whose absence does not compile (panic ends a
// path) or cannot be observed through any API (logging, tracing).
func (v *visitor) droppable(call *ast.CallExpr) bool {
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if obj, ok := v.info.Uses[fn].(*types.Builtin); ok {
			return obj.Name() == "delete" || obj.Name() == "close" || obj.Name() == "clear"
		}
	case *ast.SelectorExpr:
		if id, ok := fn.X.(*ast.Ident); ok {
			if pn, ok := v.info.Uses[id].(*types.PkgName); ok {
				switch pn.Imported().Path() {
				case "k8s.io/klog/v2", "log", "fmt", "go.opentelemetry.io/otel/trace", "k8s.io/component-base/tracing", "k8s.io/utils/trace":
					return false
				}
				if pn.Imported().Path() == "os" && fn.Sel.Name == "Exit" {
					return false
				}
			}
		}
		if sel, ok := v.info.Selections[fn]; ok && isLogger(sel.Recv()) {
			return false
		}
	}
	return true
}

func isLogger(t types.Type) bool {
	s := types.TypeString(t, nil)
	return strings.Contains(s, "github.com/go-logr/logr.Logger") || strings.Contains(s, "k8s.io/klog/v2") ||
		strings.Contains(s, "k8s.io/utils/trace") || strings.Contains(s, "go.opentelemetry.io/otel/trace")
}

// ret offers a returned error to be dropped (nil) and a returned bool to be
// negated.
func (v *visitor) ret(x *ast.ReturnStmt, stack []ast.Node) {
	sig := v.enclosingSignature(stack)
	if sig == nil || sig.Results().Len() == 0 || len(x.Results) != sig.Results().Len() {
		return
	}
	last := x.Results[len(x.Results)-1]
	res := sig.Results()
	if types.Identical(res.At(res.Len()-1).Type(), types.Universe.Lookup("error").Type()) {
		if id, ok := last.(*ast.Ident); ok && id.Name == "nil" {
			return
		}
		parts := make([]string, len(x.Results))
		for i, r := range x.Results {
			parts[i] = v.text(r)
		}
		parts[len(parts)-1] = "nil"
		dropped := "return " + strings.Join(parts, ", ")
		v.add(x, DropError, dropped, "if acMutant(%d) { "+lit(dropped)+" }; "+lit(v.text(x)))
		return
	}
	if res.Len() == 1 && types.Identical(res.At(0).Type(), types.Typ[types.Bool]) && v.isBool(last) {
		b := v.text(last)
		v.add(last, NegateReturn, "!("+b+")", "(("+lit(b)+") != acMutant(%d))")
	}
}

// constant offers an integer literal to be changed: 0 to 1, 1 to 0, n to
// n+1, converted back to the literal's type.
func (v *visitor) constant(x *ast.BasicLit, stack []ast.Node) {
	if x.Kind != token.INT || inConstantContext(stack, x) {
		return
	}
	tv, ok := v.info.Types[x]
	if !ok {
		return
	}
	t := tv.Type
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		t = types.Default(t)
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 {
		return
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(x.Value, "_", ""), 0, 64)
	if err != nil || n < 0 || n > 1<<40 {
		return
	}
	m := n + 1
	switch n {
	case 0:
		m = 1
	case 1:
		m = 0
	}
	name, ok := v.typeName(t)
	if !ok {
		return
	}
	v.add(x, Constant, strconv.FormatInt(m, 10), fmt.Sprintf("%s(acMutantInt(%%d, %d, %d))", lit(name), n, m))
}

// typeName spells t as this file can: unqualified in its own package,
// with the file's import name for another's.
func (v *visitor) typeName(t types.Type) (string, bool) {
	ok := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == v.pkg {
			return ""
		}
		for _, imp := range v.file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path != p.Path() {
				continue
			}
			if imp.Name != nil {
				if imp.Name.Name == "_" || imp.Name.Name == "." {
					break
				}
				return imp.Name.Name
			}
			return p.Name()
		}
		ok = false
		return p.Name()
	})
	return s, ok
}

func (v *visitor) enclosingSignature(stack []ast.Node) *types.Signature {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncLit:
			if t, ok := v.info.Types[f]; ok {
				s, _ := t.Type.(*types.Signature)
				return s
			}
			return nil
		case *ast.FuncDecl:
			if obj, ok := v.info.Defs[f.Name].(*types.Func); ok {
				return obj.Type().(*types.Signature)
			}
			return nil
		}
	}
	return nil
}

func (v *visitor) isBool(e ast.Expr) bool {
	tv, ok := v.info.Types[e]
	if !ok {
		return false
	}
	b, ok := tv.Type.(*types.Basic)
	return ok && (b.Kind() == types.Bool || b.Kind() == types.UntypedBool)
}

func (v *visitor) isConstant(e ast.Expr) bool {
	tv, ok := v.info.Types[e]
	return ok && tv.Value != nil
}

// inConstantContext reports whether n sits where Go needs a constant: an
// array length, a const declaration, a key of a composite literal.
func inConstantContext(stack []ast.Node, n ast.Node) bool {
	child := n
	for i := len(stack) - 1; i >= 0; i-- {
		switch x := stack[i].(type) {
		case *ast.ArrayType:
			if child == x.Len {
				return true
			}
		case *ast.KeyValueExpr:
			if child == x.Key {
				return true
			}
		case *ast.GenDecl:
			if x.Tok == token.CONST {
				return true
			}
		case *ast.FuncDecl:
			return false
		}
		child = stack[i]
	}
	return false
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		default:
			return fd.Name.Name
		}
	}
}

// lit escapes source text for a schema, which is a format string.
func lit(s string) string { return strings.ReplaceAll(s, "%", "%%") }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
