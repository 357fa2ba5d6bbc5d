// Package celenv is the inventory of the admission CEL environment: every
// variable an admission expression can read, in each place expressions are
// written, and every library (functions and macros) the environment offers,
// read from the pinned k8s.io/apiserver's own admission compilers rather
// than listed by hand, so a variable or library the next release adds shows
// up here and fails the build until it is decided (internal/contract/fields).
package celenv

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

// Context is where admission expressions are written; each compiles them
// with its own variables.
type Context string

const (
	// Webhook is a webhook's matchConditions.
	Webhook Context = "webhook"
	// Validating is a ValidatingAdmissionPolicy's expressions.
	Validating Context = "validating"
	// Mutating is a MutatingAdmissionPolicy's expressions.
	Mutating Context = "mutating"
)

// Contexts lists every context, in report order.
var Contexts = []Context{Webhook, Validating, Mutating}

// declarations are the variable declarations each context compiles with,
// as the pinned plugins ask for them (k8s.io/apiserver v0.37.2
// pkg/admission/plugin/webhook/accessors.go, policy/validating/plugin.go,
// policy/mutating/compilation.go; params only when a policy has a
// paramKind). composited says the context also has `variables`.
var declarations = map[Context]struct {
	decl        plugincel.OptionalVariableDeclarations
	composited  bool
	description string
}{
	Webhook:    {plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, false, "webhook matchConditions"},
	Validating: {plugincel.OptionalVariableDeclarations{HasParams: true, HasAuthorizer: true}, true, "ValidatingAdmissionPolicy validations, matchConditions, auditAnnotations, variables"},
	Mutating:   {plugincel.OptionalVariableDeclarations{HasParams: true, HasAuthorizer: true, HasPatchTypes: true}, true, "MutatingAdmissionPolicy mutations, matchConditions, variables"},
}

// Describe says what a context covers.
func (c Context) Describe() string { return declarations[c].description }

// Variable is one variable a context's expressions can read.
type Variable struct {
	Context Context `json:"context"`
	Name    string  `json:"name"`
	Type    string  `json:"type"`
}

// Library is one library of the environment: the functions and macros it
// brings (those of the CEL standard library under cel.lib.std).
type Library struct {
	Name      string   `json:"name"`
	Functions []string `json:"functions"`
	Macros    []string `json:"macros,omitempty"`
	// StoredOnly are the functions only expressions already stored may
	// use: introduced at the running minor, new expressions get them once
	// the compatibility version reaches it.
	StoredOnly []string `json:"storedOnly,omitempty"`
}

// Inventory is the admission CEL environment of the pinned apiserver.
type Inventory struct {
	// CompatibilityVersion is the CEL environment version new expressions
	// are checked against (the apiserver's n-1).
	CompatibilityVersion string     `json:"compatibilityVersion"`
	Variables            []Variable `json:"variables"`
	Libraries            []Library  `json:"libraries"`
	// Unattributed are functions or macros of the environment no known
	// library declares: the inventory cannot say what they are.
	Unattributed []string `json:"unattributed,omitempty"`
}

// Pinned returns the inventory, built once.
func Pinned() (Inventory, error) { return pinned() }

var pinned = sync.OnceValues(func() (Inventory, error) {
	envs, err := contextEnvs(environment.StoredExpressions)
	if err != nil {
		return Inventory{}, err
	}
	newEnvs, err := contextEnvs(environment.NewExpressions)
	if err != nil {
		return Inventory{}, err
	}
	inv := Inventory{CompatibilityVersion: environment.DefaultCompatibilityVersion().String()}
	for _, c := range Contexts {
		for _, v := range envs[c].Variables() {
			inv.Variables = append(inv.Variables, Variable{Context: c, Name: v.Name(), Type: v.Type().String()})
		}
	}
	libs, err := attribution()
	if err != nil {
		return Inventory{}, err
	}
	functions, macros := map[string]bool{}, map[string]bool{}
	names := map[string]bool{}
	canNew := map[string]bool{}
	for _, c := range Contexts {
		for _, n := range envs[c].Libraries() {
			names[n] = true
		}
		for n := range envs[c].Functions() {
			functions[n] = true
		}
		for n := range newEnvs[c].Functions() {
			canNew[n] = true
		}
		for _, m := range envs[c].Macros() {
			macros[m.MacroKey()] = true
		}
	}
	claimed := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		a, known := libs[name]
		if !known {
			inv.Unattributed = append(inv.Unattributed, "library "+name)
			continue
		}
		lib := Library{Name: name}
		for _, f := range a.functions {
			if functions[f] {
				lib.Functions = append(lib.Functions, f)
				claimed[f] = true
				if !canNew[f] {
					lib.StoredOnly = append(lib.StoredOnly, f)
				}
			}
		}
		for _, m := range a.macros {
			if macros[m] {
				lib.Macros = append(lib.Macros, m)
				claimed["macro "+m] = true
			}
		}
		inv.Libraries = append(inv.Libraries, lib)
	}
	for _, f := range slices.Sorted(maps.Keys(functions)) {
		if !claimed[f] {
			inv.Unattributed = append(inv.Unattributed, "function "+f)
		}
	}
	for _, m := range slices.Sorted(maps.Keys(macros)) {
		if !claimed["macro "+m] {
			inv.Unattributed = append(inv.Unattributed, "macro "+m)
		}
	}
	return inv, nil
})

// contextEnvs returns each context's environment as the pinned compilers
// build it, for one environment type (new or stored expressions).
func contextEnvs(t environment.Type) (map[Context]*cel.Env, error) {
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	composited, err := plugincel.NewCompositedCompiler(base)
	if err != nil {
		return nil, fmt.Errorf("admission CEL compiler: %w", err)
	}
	out := map[Context]*cel.Env{}
	for _, c := range Contexts {
		d := declarations[c]
		compiler := plugincel.NewCompiler(base) // what webhooks compile matchConditions with
		if d.composited {
			compiler = composited.Compiler
		}
		set, err := variableEnv(compiler, d.decl)
		if err != nil {
			return nil, err
		}
		if out[c], err = set.Env(t); err != nil {
			return nil, fmt.Errorf("admission CEL environment %s: %w", c, err)
		}
	}
	return out, nil
}

// variableEnv reads the environment a pinned compiler built for one set of
// variable declarations. The compiler keeps them in an unexported map
// (k8s.io/apiserver pkg/admission/plugin/cel/compile.go, compiler.varEnvs);
// reading it is the one way to see exactly the variables the apiserver
// declares. If a release renames or reshapes it, this fails loudly.
func variableEnv(c plugincel.Compiler, d plugincel.OptionalVariableDeclarations) (*environment.EnvSet, error) {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("the pinned admission CEL compiler is a %s, not a pointer to a struct: update celenv.variableEnv", v.Type())
	}
	f := v.Elem().FieldByName("varEnvs")
	if !f.IsValid() || f.Kind() != reflect.Map || f.Type().Key() != reflect.TypeOf(d) {
		return nil, errors.New("the pinned admission CEL compiler has no varEnvs map keyed by OptionalVariableDeclarations: update celenv.variableEnv")
	}
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	set, ok := f.MapIndex(reflect.ValueOf(d)).Interface().(*environment.EnvSet)
	if !ok || set == nil {
		return nil, fmt.Errorf("the pinned admission CEL compiler has no environment for %+v", d)
	}
	return set, nil
}

// attributed is what one library declares.
type attributed struct {
	functions, macros []string
	overloads         []string
}

// attribution says (once), for every library the admission environment may hold,
// which functions, overloads and macros it declares: what an environment
// with only that library has beyond a bare one (the standard library is
// what a bare environment has). The Kubernetes libraries come from their
// own registry; cel-go's extensions from extensions, at their newest
// versions (a superset of the pinned ones).
var attribution = sync.OnceValues(attributeLibraries)

func attributeLibraries() (map[string]attributed, error) {
	bare, err := cel.NewEnv()
	if err != nil {
		return nil, err
	}
	out := map[string]attributed{"cel.lib.std": declared(bare, nil)}
	opts := map[string]cel.EnvOption{}
	for name, o := range extensions {
		opts[name] = o()
	}
	for _, l := range library.KnownLibraries() {
		opts[l.LibraryName()] = cel.Lib(l)
	}
	for name, o := range opts {
		env, err := cel.NewEnv(o)
		if err != nil {
			return nil, fmt.Errorf("CEL library %s alone: %w", name, err)
		}
		out[name] = declared(env, bare)
	}
	return out, nil
}

// extensions are the cel-go libraries Kubernetes puts in its base
// environment (k8s.io/apiserver pkg/cel/environment/base.go), by name. A
// library the pinned environment has and neither this nor
// library.KnownLibraries names is reported unattributed.
var extensions = map[string]func() cel.EnvOption{
	"cel.lib.optional":     func() cel.EnvOption { return cel.OptionalTypes() },
	"cel.lib.ext.strings":  func() cel.EnvOption { return ext.Strings() },
	"cel.lib.ext.sets":     func() cel.EnvOption { return ext.Sets() },
	"cel.lib.ext.comprev2": func() cel.EnvOption { return ext.TwoVarComprehensions() },
	"cel.lib.ext.lists":    func() cel.EnvOption { return ext.Lists() },
}

// declared returns what env declares beyond base (everything when base is nil).
func declared(env, base *cel.Env) attributed {
	var a attributed
	baseOverloads := map[string]bool{}
	baseMacros := map[string]bool{}
	if base != nil {
		for _, f := range base.Functions() {
			for _, o := range f.OverloadDecls() {
				baseOverloads[o.ID()] = true
			}
		}
		for _, m := range base.Macros() {
			baseMacros[m.MacroKey()] = true
		}
	}
	for name, f := range env.Functions() {
		own := false
		for _, o := range f.OverloadDecls() {
			if !baseOverloads[o.ID()] {
				a.overloads = append(a.overloads, o.ID())
				own = true
			}
		}
		if own {
			a.functions = append(a.functions, name)
		}
	}
	for _, m := range env.Macros() {
		if !baseMacros[m.MacroKey()] {
			a.macros = append(a.macros, m.MacroKey())
		}
	}
	slices.Sort(a.functions)
	slices.Sort(a.macros)
	slices.Sort(a.overloads)
	return a
}

// Line describes the environment in one line: its size, and the functions
// only stored expressions may use yet.
func (inv Inventory) Line() string {
	functions, macros := 0, 0
	var storedOnly []string
	for _, l := range inv.Libraries {
		functions += len(l.Functions)
		macros += len(l.Macros)
		storedOnly = append(storedOnly, l.StoredOnly...)
	}
	line := fmt.Sprintf("admission CEL environment (new expressions at compatibility version %s): %d variables in %d contexts, %d libraries of %d functions and %d macros",
		inv.CompatibilityVersion, len(inv.Variables), len(Contexts), len(inv.Libraries), functions, macros)
	if len(storedOnly) > 0 {
		slices.Sort(storedOnly)
		line += fmt.Sprintf("; only stored expressions may call %s yet", strings.Join(storedOnly, ", "))
	}
	return line
}
