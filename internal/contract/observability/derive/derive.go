// Package derive reads the pinned k8s.io/apiserver admission sources, type
// checked (golang.org/x/tools/go/packages), and finds every audit
// annotation key and every metric they add: the calls adding annotations
// (admission.Attributes.AddAnnotation and AddAnnotationWithLevel, the
// audit package's AddAuditAnnotation*) with their keys evaluated as far as
// constants, local assignments, struct fields set once and fmt.Sprintf
// formats allow, and the k8s.io/component-base/metrics constructors with
// their options. It runs where the sources are (go generate, the tests),
// never in the run-conformance binary.
package derive

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/format"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/admission-conformance/admission-conformance/internal/contract/observability"
)

// Module is the module read.
const Module = "k8s.io/apiserver"

// Packages are the packages read: the admission chain, its plugins and
// their metrics, and the webhook client every admission webhook call goes
// through.
var Packages = []string{
	Module + "/pkg/admission/...",
	Module + "/pkg/util/webhook",
}

// skipped reports whether a package is a test helper, never linked into an
// apiserver.
func skipped(path string) bool {
	for _, part := range strings.Split(path, "/") {
		if part == "testing" || part == "testcerts" {
			return true
		}
	}
	return false
}

const metricsPkg = "k8s.io/component-base/metrics"
const auditPkg = Module + "/pkg/audit"

// metricConstructors maps the component-base constructors to the type of
// what they make.
var metricConstructors = map[string]string{
	"NewCounter": "counter", "NewCounterVec": "counter",
	"NewGauge": "gauge", "NewGaugeVec": "gauge", "NewGaugeFunc": "gauge",
	"NewHistogram": "histogram", "NewHistogramVec": "histogram",
	"NewTimingHistogram": "histogram", "NewTimingHistogramVec": "histogram",
	"NewSummary": "summary", "NewSummaryVec": "summary",
	"NewDesc": "",
}

// Derive loads the packages from dir (inside this module, so the go.mod
// pin decides the version) and returns what they add.
func Derive(dir string) (observability.Inventory, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir: dir,
	}
	pkgs, err := packages.Load(cfg, Packages...)
	if err != nil {
		return observability.Inventory{}, fmt.Errorf("load %v: %w", Packages, err)
	}
	inv := observability.Inventory{Packages: slices.Clone(Packages)}
	annotations := map[string]*observability.Annotation{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return inv, fmt.Errorf("load %s: %v", p.PkgPath, p.Errors)
		}
		if skipped(p.PkgPath) {
			continue
		}
		if p.Module == nil || p.Module.Path != Module {
			return inv, fmt.Errorf("package %s is not in module %s", p.PkgPath, Module)
		}
		version := p.Module.Version
		if p.Module.Replace != nil {
			version = p.Module.Replace.Version
		}
		mod := Module + " " + version
		if inv.Module != "" && inv.Module != mod {
			return inv, fmt.Errorf("packages from %s and %s", inv.Module, mod)
		}
		inv.Module = mod
		x := newIndex(p)
		found, err := x.scan()
		if err != nil {
			return inv, err
		}
		for _, a := range found.annotations {
			if have, ok := annotations[a.Key]; ok {
				if have.Level != a.Level {
					return inv, fmt.Errorf("annotation %s is added at levels %s and %s", a.Key, have.Level, a.Level)
				}
				have.Sites = append(have.Sites, a.Sites...)
				continue
			}
			annotations[a.Key] = &a
		}
		inv.Metrics = append(inv.Metrics, found.metrics...)
		inv.Forwarders = append(inv.Forwarders, found.forwarders...)
	}
	if inv.Module == "" {
		return inv, fmt.Errorf("no package of %v loaded", Packages)
	}
	for _, a := range annotations {
		slices.Sort(a.Sites)
		a.Sites = slices.Compact(a.Sites)
		inv.Annotations = append(inv.Annotations, *a)
	}
	sort.Slice(inv.Annotations, func(i, j int) bool { return inv.Annotations[i].Key < inv.Annotations[j].Key })
	sort.Slice(inv.Metrics, func(i, j int) bool { return inv.Metrics[i].Name < inv.Metrics[j].Name })
	sort.Slice(inv.Forwarders, func(i, j int) bool { return inv.Forwarders[i].ID() < inv.Forwarders[j].ID() })
	for i := 1; i < len(inv.Metrics); i++ {
		if inv.Metrics[i].Name == inv.Metrics[i-1].Name {
			return inv, fmt.Errorf("metric %s is declared twice (%s, %s)", inv.Metrics[i].Name, inv.Metrics[i-1].Site, inv.Metrics[i].Site)
		}
	}
	return inv, nil
}

// index is one package with what its code assigns to each variable and
// struct field, so a key or an option can be followed to its value.
type index struct {
	pkg *packages.Package
	// values are the expressions assigned to a variable or field; a nil
	// expression is an assignment the index cannot follow (a tuple, a
	// range variable).
	values map[types.Object][]ast.Expr
}

func newIndex(p *packages.Package) *index {
	x := &index{pkg: p, values: map[types.Object][]ast.Expr{}}
	info := p.TypesInfo
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					obj := x.object(lhs)
					if obj == nil {
						continue
					}
					if len(n.Lhs) == len(n.Rhs) {
						x.values[obj] = append(x.values[obj], n.Rhs[i])
					} else {
						x.values[obj] = append(x.values[obj], nil)
					}
				}
			case *ast.ValueSpec:
				for i, name := range n.Names {
					obj := info.Defs[name]
					if obj == nil {
						continue
					}
					switch {
					case len(n.Values) == len(n.Names):
						x.values[obj] = append(x.values[obj], n.Values[i])
					case len(n.Values) > 0:
						x.values[obj] = append(x.values[obj], nil)
					}
				}
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if obj := x.object(e); obj != nil {
						x.values[obj] = append(x.values[obj], nil)
					}
				}
			case *ast.CompositeLit:
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if id, ok := kv.Key.(*ast.Ident); ok {
						if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
							x.values[v] = append(x.values[v], kv.Value)
						}
					}
				}
			}
			return true
		})
	}
	return x
}

// object is the variable or field an expression names.
func (x *index) object(e ast.Expr) types.Object {
	switch e := e.(type) {
	case *ast.Ident:
		if obj := x.pkg.TypesInfo.Defs[e]; obj != nil {
			return obj
		}
		return x.pkg.TypesInfo.Uses[e]
	case *ast.SelectorExpr:
		return x.pkg.TypesInfo.Uses[e.Sel]
	case *ast.ParenExpr:
		return x.object(e.X)
	}
	return nil
}

// value follows a variable or field to the one expression assigned to it.
func (x *index) value(e ast.Expr) (ast.Expr, bool) {
	v, ok := x.object(e).(*types.Var)
	if !ok {
		return nil, false
	}
	vals := x.values[v]
	if len(vals) != 1 || vals[0] == nil {
		return nil, false
	}
	return vals[0], true
}

// eval renders a string expression: constants as they are, the rest as
// {expression}.
func (x *index) eval(e ast.Expr, depth int) string {
	info := x.pkg.TypesInfo
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		switch tv.Value.Kind() {
		case constant.String:
			return constant.StringVal(tv.Value)
		default:
			return tv.Value.ExactString()
		}
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return x.eval(e.X, depth)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return x.eval(e.X, depth) + x.eval(e.Y, depth)
		}
	case *ast.CallExpr:
		if x.isFunc(e.Fun, "fmt", "Sprintf") && len(e.Args) > 0 {
			if format, ok := x.constString(e.Args[0]); ok {
				return x.sprintf(format, e.Args[1:], depth)
			}
		}
		if tv, ok := info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return x.eval(e.Args[0], depth)
		}
	case *ast.Ident, *ast.SelectorExpr:
		if depth < 8 {
			if v, ok := x.value(e); ok {
				return x.eval(v, depth+1)
			}
		}
	}
	return "{" + types.ExprString(e) + "}"
}

func (x *index) constString(e ast.Expr) (string, bool) {
	tv, ok := x.pkg.TypesInfo.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// sprintf renders fmt.Sprintf(format, args...) with eval'd arguments.
func (x *index) sprintf(format string, args []ast.Expr, depth int) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			break
		}
		if format[i] == '%' {
			b.WriteByte('%')
			continue
		}
		if len(args) == 0 {
			b.WriteString("{?}")
			continue
		}
		v := x.eval(args[0], depth)
		if format[i] == 'q' && !strings.Contains(v, "{") {
			v = strconv.Quote(v)
		}
		b.WriteString(v)
		args = args[1:]
	}
	return b.String()
}

// isFunc reports whether fun is the package-level function pkg.name.
func (x *index) isFunc(fun ast.Expr, pkg, name string) bool {
	f, ok := x.callee(fun).(*types.Func)
	return ok && f.Pkg() != nil && f.Pkg().Path() == pkg && f.Name() == name && f.Type().(*types.Signature).Recv() == nil
}

func (x *index) callee(fun ast.Expr) types.Object {
	switch f := fun.(type) {
	case *ast.Ident:
		return x.pkg.TypesInfo.Uses[f]
	case *ast.SelectorExpr:
		return x.pkg.TypesInfo.Uses[f.Sel]
	case *ast.ParenExpr:
		return x.callee(f.X)
	}
	return nil
}

type found struct {
	annotations []observability.Annotation
	metrics     []observability.Metric
	forwarders  []observability.Forwarder
}

// rel is a file's path relative to its module, with slashes.
func (x *index) rel(pos token.Pos) string {
	file := x.pkg.Fset.Position(pos).Filename
	if x.pkg.Module != nil {
		dir := x.pkg.Module.Dir
		if x.pkg.Module.Replace != nil && x.pkg.Module.Replace.Dir != "" {
			dir = x.pkg.Module.Replace.Dir
		}
		if r, err := filepath.Rel(dir, file); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return filepath.Base(file)
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + types.ExprString(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

// scan finds the package's annotation sinks and metric constructors.
func (x *index) scan() (found, error) {
	var out found
	var errs []string
	for _, f := range x.pkg.Syntax {
		for _, decl := range f.Decls {
			var fd *ast.FuncDecl
			var root ast.Node = decl
			if d, ok := decl.(*ast.FuncDecl); ok {
				fd = d
			}
			ast.Inspect(root, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				site := x.rel(call.Pos())
				if fd != nil {
					site += " " + funcName(fd)
				}
				if a, fw, ok, err := x.annotation(call, fd, site); err != nil {
					errs = append(errs, err.Error())
				} else if ok {
					out.annotations = append(out.annotations, a...)
					out.forwarders = append(out.forwarders, fw...)
				}
				if m, ok, err := x.metric(call); err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", x.pkg.Fset.Position(call.Pos()), err))
				} else if ok {
					out.metrics = append(out.metrics, m)
				}
				return true
			})
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}

// annotation recognises a call adding audit annotations.
func (x *index) annotation(call *ast.CallExpr, fd *ast.FuncDecl, site string) ([]observability.Annotation, []observability.Forwarder, bool, error) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, nil, false, nil
	}
	forward := func() ([]observability.Annotation, []observability.Forwarder, bool, error) {
		return nil, []observability.Forwarder{{Site: site, Call: types.ExprString(call.Fun)}}, true, nil
	}
	if s := x.pkg.TypesInfo.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
		level := ""
		switch sel.Sel.Name {
		case "AddAnnotation":
			level = "Metadata"
		case "AddAnnotationWithLevel":
			if len(call.Args) < 3 {
				return nil, nil, false, fmt.Errorf("%s: AddAnnotationWithLevel with %d arguments", site, len(call.Args))
			}
			l, ok := x.constString(call.Args[2])
			if !ok {
				if x.isParam(call.Args[2], fd) {
					return forward()
				}
				return nil, nil, false, fmt.Errorf("%s: the level of AddAnnotationWithLevel is not a constant: %s", site, types.ExprString(call.Args[2]))
			}
			level = l
		default:
			return nil, nil, false, nil
		}
		if len(call.Args) < 2 {
			return nil, nil, false, fmt.Errorf("%s: %s with %d arguments", site, sel.Sel.Name, len(call.Args))
		}
		if x.isParam(call.Args[0], fd) {
			return forward()
		}
		return []observability.Annotation{{Key: x.eval(call.Args[0], 0), Level: level, Sites: []string{site}}}, nil, true, nil
	}
	f, ok := x.callee(call.Fun).(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != auditPkg {
		return nil, nil, false, nil
	}
	switch f.Name() {
	case "AddAuditAnnotation":
		if len(call.Args) < 2 || x.isParam(call.Args[1], fd) {
			return forward()
		}
		return []observability.Annotation{{Key: x.eval(call.Args[1], 0), Level: "Metadata", Sites: []string{site}}}, nil, true, nil
	case "AddAuditAnnotations":
		if call.Ellipsis.IsValid() {
			return forward()
		}
		var out []observability.Annotation
		for i := 1; i < len(call.Args); i += 2 {
			out = append(out, observability.Annotation{Key: x.eval(call.Args[i], 0), Level: "Metadata", Sites: []string{site}})
		}
		return out, nil, true, nil
	case "AddAuditAnnotationsMap":
		lit, ok := call.Args[len(call.Args)-1].(*ast.CompositeLit)
		if !ok {
			return forward()
		}
		var out []observability.Annotation
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				out = append(out, observability.Annotation{Key: x.eval(kv.Key, 0), Level: "Metadata", Sites: []string{site}})
			}
		}
		return out, nil, true, nil
	}
	return nil, nil, false, nil
}

// isParam reports whether e is a parameter of fd: the key of a call that
// forwards what its caller chose.
func (x *index) isParam(e ast.Expr, fd *ast.FuncDecl) bool {
	id, ok := e.(*ast.Ident)
	if !ok || fd == nil {
		return false
	}
	obj := x.pkg.TypesInfo.Uses[id]
	if obj == nil {
		return false
	}
	return obj.Pos() >= fd.Type.Params.Pos() && obj.Pos() <= fd.Type.Params.End()
}

// metric recognises a component-base metric constructor.
func (x *index) metric(call *ast.CallExpr) (observability.Metric, bool, error) {
	f, ok := x.callee(call.Fun).(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != metricsPkg {
		return observability.Metric{}, false, nil
	}
	kind, ok := metricConstructors[f.Name()]
	if !ok {
		return observability.Metric{}, false, nil
	}
	m := observability.Metric{Type: kind, Site: x.rel(call.Pos())}
	if f.Name() == "NewDesc" {
		// NewDesc(fqName, help, variableLabels, constLabels, stability, deprecatedVersion)
		if len(call.Args) < 5 {
			return m, false, fmt.Errorf("NewDesc with %d arguments", len(call.Args))
		}
		name, err := x.fqName(call.Args[0])
		if err != nil {
			return m, false, err
		}
		m.Name, m.Help = name, x.eval(call.Args[1], 0)
		if m.Labels, err = x.strings(call.Args[2]); err != nil {
			return m, false, err
		}
		m.Stability = x.eval(call.Args[4], 0)
		if m.Type, err = x.descType(call); err != nil {
			return m, false, err
		}
		return m, true, x.complete(m)
	}
	opts, ok := x.literal(call.Args[0])
	if !ok {
		return m, false, fmt.Errorf("%s options are not a composite literal: %s", f.Name(), types.ExprString(call.Args[0]))
	}
	fields := map[string]string{}
	for _, el := range opts.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				fields[id.Name] = x.eval(kv.Value, 0)
			}
		}
	}
	m.Name = buildFQName(fields["Namespace"], fields["Subsystem"], fields["Name"])
	m.Help, m.Stability = fields["Help"], fields["StabilityLevel"]
	if strings.HasSuffix(f.Name(), "Vec") {
		labels, err := x.strings(call.Args[1])
		if err != nil {
			return m, false, err
		}
		m.Labels = labels
	}
	return m, true, x.complete(m)
}

// complete reports a metric the derivation could not read whole.
func (x *index) complete(m observability.Metric) error {
	for what, v := range map[string]string{"name": m.Name, "help": m.Help, "stability": m.Stability, "type": m.Type} {
		if v == "" || strings.Contains(v, "{") && what != "help" {
			return fmt.Errorf("metric %q: cannot read its %s (%q)", m.Name, what, v)
		}
	}
	for _, l := range m.Labels {
		if strings.Contains(l, "{") {
			return fmt.Errorf("metric %s: cannot read label %s", m.Name, l)
		}
	}
	return nil
}

// descType finds the value type the custom collectors emitting a Desc
// give it: the NewLazyConstMetric or NewConstMetric calls whose desc
// resolves to this NewDesc call.
func (x *index) descType(desc *ast.CallExpr) (string, error) {
	var kinds []string
	for _, f := range x.pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if !x.isFunc(call.Fun, metricsPkg, "NewLazyConstMetric") && !x.isFunc(call.Fun, metricsPkg, "NewConstMetric") {
				return true
			}
			if x.resolve(call.Args[0], 0) != ast.Expr(desc) {
				return true
			}
			sel, ok := call.Args[1].(*ast.SelectorExpr)
			if !ok {
				kinds = append(kinds, "{"+types.ExprString(call.Args[1])+"}")
				return true
			}
			kinds = append(kinds, strings.ToLower(strings.TrimSuffix(sel.Sel.Name, "Value")))
			return true
		})
	}
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	if len(kinds) != 1 {
		return "", fmt.Errorf("desc %s: emitted as %v, want exactly one value type", types.ExprString(desc.Args[0]), kinds)
	}
	return kinds[0], nil
}

// resolve follows variables and fields to the expression they hold.
func (x *index) resolve(e ast.Expr, depth int) ast.Expr {
	if depth > 8 {
		return e
	}
	switch v := e.(type) {
	case *ast.ParenExpr:
		return x.resolve(v.X, depth+1)
	case *ast.UnaryExpr:
		if v.Op == token.AND {
			return x.resolve(v.X, depth+1)
		}
	case *ast.Ident, *ast.SelectorExpr:
		if val, ok := x.value(e); ok {
			return x.resolve(val, depth+1)
		}
	}
	return e
}

func (x *index) literal(e ast.Expr) (*ast.CompositeLit, bool) {
	lit, ok := x.resolve(e, 0).(*ast.CompositeLit)
	return lit, ok
}

func (x *index) strings(e ast.Expr) ([]string, error) {
	if id, ok := e.(*ast.Ident); ok && id.Name == "nil" {
		return nil, nil
	}
	lit, ok := x.literal(e)
	if !ok {
		return nil, fmt.Errorf("labels are not a composite literal: %s", types.ExprString(e))
	}
	var out []string
	for _, el := range lit.Elts {
		out = append(out, x.eval(el, 0))
	}
	return out, nil
}

func (x *index) fqName(e ast.Expr) (string, error) {
	call, ok := x.resolve(e, 0).(*ast.CallExpr)
	if ok && x.isFunc(call.Fun, metricsPkg, "BuildFQName") && len(call.Args) == 3 {
		return buildFQName(x.eval(call.Args[0], 0), x.eval(call.Args[1], 0), x.eval(call.Args[2], 0)), nil
	}
	if s, ok := x.constString(e); ok {
		return s, nil
	}
	return "", fmt.Errorf("cannot read the name %s", types.ExprString(e))
}

// buildFQName is component-base's BuildFQName: the non-empty parts joined
// by underscores, nothing without a name.
func buildFQName(namespace, subsystem, name string) string {
	if name == "" {
		return ""
	}
	var parts []string
	for _, p := range []string{namespace, subsystem, name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "_")
}

// GoSource renders inv as the generated file of package observability.
func GoSource(inv observability.Inventory) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/contract/observability/gen from the pinned sources; DO NOT EDIT.\n\n")
	b.WriteString("package observability\n\n")
	b.WriteString("// pinned is what internal/contract/observability/derive found in the pinned sources.\n")
	fmt.Fprintf(&b, "var pinned = Inventory{\n\tModule: %q,\n\tPackages: %#v,\n", inv.Module, inv.Packages)
	b.WriteString("\tAnnotations: []Annotation{\n")
	for _, a := range inv.Annotations {
		fmt.Fprintf(&b, "\t\t{Key: %q, Level: %q, Sites: %#v},\n", a.Key, a.Level, a.Sites)
	}
	b.WriteString("\t},\n\tMetrics: []Metric{\n")
	for _, m := range inv.Metrics {
		fmt.Fprintf(&b, "\t\t{Name: %q, Type: %q, Labels: %#v, Stability: %q, Site: %q,\n\t\t\tHelp: %q},\n", m.Name, m.Type, m.Labels, m.Stability, m.Site, m.Help)
	}
	b.WriteString("\t},\n\tForwarders: []Forwarder{\n")
	for _, f := range inv.Forwarders {
		fmt.Fprintf(&b, "\t\t{Site: %q, Call: %q},\n", f.Site, f.Call)
	}
	b.WriteString("\t},\n}\n")
	return format.Source(b.Bytes())
}
