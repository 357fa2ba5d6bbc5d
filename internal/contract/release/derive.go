package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The derivation reads the pinned Kubernetes sources. It runs where those
// sources are (hack/release-inventory writes its result to
// zz_generated_pinned.go, a test re-derives and compares), never in the
// run-conformance binary, which may run far from a Go module cache.

// Modules are the pinned modules the derivation reads, by path.
var Modules = []string{"k8s.io/kubernetes", "k8s.io/apiserver", "k8s.io/pod-security-admission"}

// Module is one pinned module: its version and where its sources are.
type Module struct {
	Path, Version, Dir string
}

// PinnedModules asks the go command (run in dir, inside this repository)
// for the Modules as go.mod pins them, replacements applied.
func PinnedModules(dir string) (map[string]Module, error) {
	cmd := exec.Command("go", append([]string{"list", "-m", "-json"}, Modules...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m %s: %v: %s", strings.Join(Modules, " "), err, stderr.String())
	}
	mods := map[string]Module{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var m struct {
			Path, Version, Dir string
			Replace            *struct{ Version, Dir string }
		}
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		if m.Replace != nil {
			m.Version, m.Dir = m.Replace.Version, m.Replace.Dir
		}
		if m.Dir == "" {
			return nil, fmt.Errorf("module %s %s has no sources here: run `go mod download %s`", m.Path, m.Version, m.Path)
		}
		mods[m.Path] = Module{Path: m.Path, Version: m.Version, Dir: m.Dir}
	}
	for _, p := range Modules {
		if _, ok := mods[p]; !ok {
			return nil, fmt.Errorf("go list -m did not report %s", p)
		}
	}
	return mods, nil
}

// Derived is what the derivation finds in the pinned sources.
type Derived struct {
	// Kubernetes is the pinned k8s.io/kubernetes version.
	Kubernetes string
	// KubeletHandlers is the kubelet's pod admit chain, in order.
	KubeletHandlers []KubeletHandler
	// GateReferences maps each feature gate that admission code reads to
	// the files reading it (module path + file path, sorted).
	GateReferences map[string][]string
}

// KubeletHandler is one handler of the kubelet's pod admit chain.
type KubeletHandler struct {
	// Constructor is the function that makes the handler, as written in
	// NewMainKubelet ("lifecycle.NewPredicateAdmitHandler"); it names the
	// handler in the release table.
	Constructor string
	// Guard is the condition of the if statements the handler is added
	// under ("goos == \"linux\""), joined by " && "; empty if always.
	Guard string
}

// KubeletChainFile is the file, in k8s.io/kubernetes, whose NewMainKubelet
// builds the pod admit chain.
const KubeletChainFile = "pkg/kubelet/kubelet.go"

// Derive reads the pinned sources of mods. gates are the names of every
// feature gate the pinned Kubernetes registers: a reference counts only if
// it names one of them.
func Derive(mods map[string]Module, gates map[string]bool) (Derived, error) {
	kube := mods["k8s.io/kubernetes"]
	d := Derived{Kubernetes: kube.Version, GateReferences: map[string][]string{}}
	handlers, err := deriveKubeletHandlers(filepath.Join(kube.Dir, KubeletChainFile))
	if err != nil {
		return d, err
	}
	d.KubeletHandlers = handlers
	files, err := admissionFiles(mods)
	if err != nil {
		return d, err
	}
	for _, f := range files {
		names, err := gateSelectors(f.abs)
		if err != nil {
			return d, err
		}
		for _, n := range names {
			if gates[n] {
				d.GateReferences[n] = append(d.GateReferences[n], f.rel)
			}
		}
	}
	for _, refs := range d.GateReferences {
		sort.Strings(refs)
	}
	return d, nil
}

// AdmissionCode is the written rule for "admission code": a feature gate
// read there is admission-related. Each path is a module path followed by
// a directory (every non-test Go file below it, test helpers excluded) or
// a file.
var AdmissionCode = []string{
	"k8s.io/apiserver/pkg/admission",                           // the chain, webhooks, CEL policies, manifests
	"k8s.io/apiserver/pkg/server/options/admission.go",         // the generic admission options and plugin wiring
	"k8s.io/kubernetes/plugin/pkg/admission",                   // kube-apiserver's compiled-in plugins
	"k8s.io/kubernetes/pkg/kubeapiserver/admission",            // their initializers
	"k8s.io/kubernetes/pkg/kubeapiserver/options/admission.go", // kube-apiserver's admission options
	"k8s.io/kubernetes/pkg/kubeapiserver/options/plugins.go",   // the plugin order and defaults
	"k8s.io/kubernetes/pkg/kubelet/lifecycle",                  // the kubelet's admit handlers and predicates
	"k8s.io/pod-security-admission",                            // PodSecurity's library
}

// AdmitHandlerCode completes the rule: every non-test file below it that
// declares a method Admit taking *PodAdmitAttributes, i.e. the kubelet
// admit handlers living outside pkg/kubelet/lifecycle (eviction, sysctl,
// node shutdown, topology manager, resize).
const AdmitHandlerCode = "k8s.io/kubernetes/pkg/kubelet"

type sourceFile struct{ abs, rel string }

func admissionFiles(mods map[string]Module) ([]sourceFile, error) {
	seen := map[string]bool{}
	var out []sourceFile
	add := func(abs, rel string) {
		if !seen[rel] {
			seen[rel] = true
			out = append(out, sourceFile{abs, rel})
		}
	}
	for i, p := range append(append([]string(nil), AdmissionCode...), AdmitHandlerCode) {
		onlyAdmit := i == len(AdmissionCode)
		mod, sub, err := splitModule(p)
		if err != nil {
			return nil, err
		}
		m := mods[mod]
		root := filepath.Join(m.Dir, filepath.FromSlash(sub))
		err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if n := e.Name(); path != root && (n == "testdata" || n == "test" || n == "testing") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			if onlyAdmit {
				ok, err := declaresPodAdmitMethod(path)
				if err != nil || !ok {
					return err
				}
			}
			rel, err := filepath.Rel(m.Dir, path)
			if err != nil {
				return err
			}
			add(path, mod+"/"+filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("admission code %s: %w", p, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

func splitModule(p string) (mod, sub string, err error) {
	for _, m := range Modules {
		if p == m {
			return m, "", nil
		}
		if strings.HasPrefix(p, m+"/") {
			return m, strings.TrimPrefix(p, m+"/"), nil
		}
	}
	return "", "", fmt.Errorf("%s is in none of the modules %v", p, Modules)
}

// declaresPodAdmitMethod: the file declares a method Admit with a
// parameter of type *PodAdmitAttributes (qualified or not).
func declaresPodAdmitMethod(path string) (bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return false, err
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Name.Name != "Admit" {
			continue
		}
		for _, p := range fn.Type.Params.List {
			star, ok := p.Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			switch t := star.X.(type) {
			case *ast.Ident:
				if t.Name == "PodAdmitAttributes" {
					return true, nil
				}
			case *ast.SelectorExpr:
				if t.Sel.Name == "PodAdmitAttributes" {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// gateSelectors lists the exported names the file selects from an imported
// package whose path ends in "/features" (k8s.io/kubernetes/pkg/features,
// k8s.io/apiserver/pkg/features, ...), other than in calls: the gates it
// reads.
func gateSelectors(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pkgs := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !strings.HasSuffix(p, "/features") {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = true
	}
	if len(pkgs) == 0 {
		return nil, nil
	}
	called := map[*ast.SelectorExpr]bool{}
	found := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if s, ok := n.Fun.(*ast.SelectorExpr); ok {
				called[s] = true
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && pkgs[x.Name] && n.Sel.IsExported() && !called[n] {
				found[n.Sel.Name] = true
			}
		}
		return true
	})
	out := make([]string, 0, len(found))
	for n := range found {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// deriveKubeletHandlers follows NewMainKubelet: the argument of its
// AddPodAdmitHandlers (or AddPodAdmitHandler) calls, expanded through
// append, []lifecycle.PodAdmitHandler literals and the slice variables
// such literals start, each element named by the function that made it
// (called in place, or assigned to the variable passed), under the
// conditions of the if statements around the append.
func deriveKubeletHandlers(path string) ([]KubeletHandler, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var body *ast.BlockStmt
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "NewMainKubelet" {
			body = fn.Body
		}
	}
	if body == nil {
		return nil, fmt.Errorf("%s: no func NewMainKubelet: the kubelet admit chain moved; update the derivation", path)
	}
	w := &chainWalker{fset: fset, made: map[string]string{}, slices: map[string][]KubeletHandler{}}
	w.block(body.List, nil)
	if w.err != nil {
		return nil, fmt.Errorf("%s: %w", path, w.err)
	}
	if len(w.chain) == 0 {
		return nil, fmt.Errorf("%s: NewMainKubelet adds no pod admit handler (no AddPodAdmitHandlers call): update the derivation", path)
	}
	return w.chain, nil
}

type chainWalker struct {
	fset   *token.FileSet
	made   map[string]string           // variable -> the function whose result it was assigned
	slices map[string][]KubeletHandler // []lifecycle.PodAdmitHandler variables
	chain  []KubeletHandler
	err    error
}

func (w *chainWalker) text(e ast.Node) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, w.fset, e)
	return b.String()
}

func (w *chainWalker) block(stmts []ast.Stmt, guards []string) {
	for _, s := range stmts {
		w.stmt(s, guards)
	}
}

func (w *chainWalker) stmt(s ast.Stmt, guards []string) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		w.block(s.List, guards)
	case *ast.IfStmt:
		if s.Init != nil {
			w.stmt(s.Init, guards)
		}
		w.block(s.Body.List, append(append([]string(nil), guards...), w.text(s.Cond)))
		if s.Else != nil {
			w.stmt(s.Else, append(append([]string(nil), guards...), "!("+w.text(s.Cond)+")"))
		}
	case *ast.AssignStmt:
		w.assign(s, guards)
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if ok && (sel.Sel.Name == "AddPodAdmitHandlers" || sel.Sel.Name == "AddPodAdmitHandler") && len(call.Args) == 1 {
			w.chain = append(w.chain, w.expand(call.Args[0], guards)...)
		}
	}
}

func (w *chainWalker) assign(s *ast.AssignStmt, guards []string) {
	if len(s.Rhs) != 1 {
		return
	}
	lhs := func(i int) string {
		if i < len(s.Lhs) {
			return w.text(s.Lhs[i])
		}
		return ""
	}
	switch r := s.Rhs[0].(type) {
	case *ast.CompositeLit:
		if isAdmitHandlerSlice(w, r.Type) && len(s.Lhs) == 1 {
			w.slices[lhs(0)] = w.expand(r, guards)
		}
	case *ast.CallExpr:
		if id, ok := r.Fun.(*ast.Ident); ok && id.Name == "append" && len(s.Lhs) == 1 {
			if _, isSlice := w.slices[lhs(0)]; isSlice {
				w.slices[lhs(0)] = w.expand(r, guards)
				return
			}
		}
		for i := range s.Lhs {
			if n := lhs(i); n != "_" {
				w.made[n] = w.text(r.Fun)
			}
		}
	}
}

func isAdmitHandlerSlice(w *chainWalker, t ast.Expr) bool {
	a, ok := t.(*ast.ArrayType)
	return ok && a.Len == nil && strings.HasSuffix(w.text(a.Elt), "PodAdmitHandler")
}

func (w *chainWalker) expand(e ast.Expr, guards []string) []KubeletHandler {
	guard := strings.Join(guards, " && ")
	switch e := e.(type) {
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "append" && len(e.Args) > 0 {
			out := append([]KubeletHandler(nil), w.expand(e.Args[0], guards)...)
			for _, a := range e.Args[1:] {
				if e.Ellipsis.IsValid() {
					out = append(out, w.expand(a, guards)...)
				} else {
					out = append(out, w.element(a, guard))
				}
			}
			return out
		}
		return []KubeletHandler{w.element(e, guard)}
	case *ast.CompositeLit:
		if !isAdmitHandlerSlice(w, e.Type) {
			return []KubeletHandler{w.element(e, guard)}
		}
		var out []KubeletHandler
		for _, el := range e.Elts {
			out = append(out, w.element(el, guard))
		}
		return out
	case *ast.Ident:
		if hs, ok := w.slices[e.Name]; ok {
			return append([]KubeletHandler(nil), hs...)
		}
	}
	return []KubeletHandler{w.element(e, guard)}
}

func (w *chainWalker) element(e ast.Expr, guard string) KubeletHandler {
	if call, ok := e.(*ast.CallExpr); ok {
		return KubeletHandler{Constructor: w.text(call.Fun), Guard: guard}
	}
	name := w.text(e)
	if fn, ok := w.made[name]; ok {
		return KubeletHandler{Constructor: fn, Guard: guard}
	}
	if w.err == nil {
		w.err = fmt.Errorf("admit handler %s: cannot tell which function made it", name)
	}
	return KubeletHandler{Constructor: name, Guard: guard}
}

// GoSource renders d as the generated Go file hack/release-inventory writes.
func (d Derived) GoSource() []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, "// Code generated by hack/release-inventory from the pinned Kubernetes sources; DO NOT EDIT.")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "package release")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "// pinned is what Derive found in the sources of the pinned modules.")
	fmt.Fprintln(&b, "var pinned = Derived{")
	fmt.Fprintf(&b, "\tKubernetes: %q,\n", d.Kubernetes)
	fmt.Fprintln(&b, "\tKubeletHandlers: []KubeletHandler{")
	for _, h := range d.KubeletHandlers {
		fmt.Fprintf(&b, "\t\t{Constructor: %q, Guard: %q},\n", h.Constructor, h.Guard)
	}
	fmt.Fprintln(&b, "\t},")
	fmt.Fprintln(&b, "\tGateReferences: map[string][]string{")
	gates := make([]string, 0, len(d.GateReferences))
	for g := range d.GateReferences {
		gates = append(gates, g)
	}
	sort.Strings(gates)
	for _, g := range gates {
		fmt.Fprintf(&b, "\t\t%q: {\n", g)
		for _, f := range d.GateReferences[g] {
			fmt.Fprintf(&b, "\t\t\t%q,\n", f)
		}
		fmt.Fprintln(&b, "\t\t},")
	}
	fmt.Fprintln(&b, "\t},")
	fmt.Fprintln(&b, "}")
	src, err := format.Source(b.Bytes())
	if err != nil {
		panic(fmt.Sprintf("generated source does not parse: %v", err))
	}
	return src
}

// GeneratedFile is the generated file's name in this package.
const GeneratedFile = "zz_generated_pinned.go"

// Write writes d's Go source to path.
func (d Derived) Write(path string) error {
	return os.WriteFile(path, d.GoSource(), 0o644)
}
