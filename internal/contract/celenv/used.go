package celenv

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Entry names, as the field inventory lists them under its CEL root.
const (
	variablesPrefix = "variables."
	librariesPrefix = "libraries."
)

// VariableEntry names a context's variable.
func VariableEntry(c Context, name string) string { return variablesPrefix + string(c) + "." + name }

// LibraryEntry names a library.
func LibraryEntry(name string) string { return librariesPrefix + name }

// Entries returns every entry of the inventory, sorted: each context's
// variables and each library.
func (inv Inventory) Entries() []string {
	var out []string
	for _, v := range inv.Variables {
		out = append(out, VariableEntry(v.Context, v.Name))
	}
	for _, l := range inv.Libraries {
		out = append(out, LibraryEntry(l.Name))
	}
	slices.Sort(out)
	return out
}

// observer reads expressions of one context: the context's environment
// with `variables` as a map of anything (the apiserver types each policy's
// variables as it compiles them) and macro calls kept, plus which library
// each overload and macro belongs to.
type observer struct {
	env       *cel.Env
	variables map[string]bool
	overloads map[string][]string // overload ID -> libraries declaring it
	macros    map[string][]string // macro key -> libraries
	functions map[string][]string // function name -> libraries
}

var observers = sync.OnceValues(func() (map[Context]*observer, error) {
	inv, err := Pinned()
	if err != nil {
		return nil, err
	}
	libs, err := attribution()
	if err != nil {
		return nil, err
	}
	inEnv := map[string]bool{}
	for _, l := range inv.Libraries {
		inEnv[l.Name] = true
	}
	overloads, macros, functions := map[string][]string{}, map[string][]string{}, map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(libs)) {
		if !inEnv[name] {
			continue
		}
		for _, o := range libs[name].overloads {
			overloads[o] = append(overloads[o], name)
		}
		for _, m := range libs[name].macros {
			macros[m] = append(macros[m], name)
		}
		for _, f := range libs[name].functions {
			functions[f] = append(functions[f], name)
		}
	}
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	out := map[Context]*observer{}
	for _, c := range Contexts {
		d := declarations[c]
		set, err := variableEnv(plugincel.NewCompiler(base), d.decl)
		if err != nil {
			return nil, err
		}
		env, err := set.Env(environment.StoredExpressions)
		if err != nil {
			return nil, err
		}
		opts := []cel.EnvOption{cel.EnableMacroCallTracking()}
		if d.composited {
			opts = append(opts, cel.Variable(plugincel.VariableVarName, cel.MapType(cel.StringType, cel.DynType)))
		}
		if env, err = env.Extend(opts...); err != nil {
			return nil, fmt.Errorf("observing CEL environment %s: %w", c, err)
		}
		o := &observer{env: env, variables: map[string]bool{}, overloads: overloads, macros: macros, functions: functions}
		for _, v := range inv.Variables {
			if v.Context == c {
				o.variables[v.Name] = true
			}
		}
		out[c] = o
	}
	return out, nil
})

// Used returns the entries an expression written in context c uses: the
// variables it reads and the libraries whose functions or macros it calls
// (a call whose overload the type checker cannot pin to one library, such
// as indexOf on a value of unknown type, counts for none). An expression
// that does not compile is read as far as it parses, functions then
// counting by name when one library alone has it.
func Used(c Context, expression string) []string {
	all, err := observers()
	if err != nil || all[c] == nil {
		return nil
	}
	return all[c].used(c, expression)
}

func (o *observer) used(c Context, expression string) []string {
	out := map[string]bool{}
	ast, iss := o.env.Compile(expression)
	checked := iss == nil || iss.Err() == nil
	if !checked {
		if ast, iss = o.env.Parse(expression); iss != nil && iss.Err() != nil {
			return nil
		}
	}
	native := ast.NativeRep()
	refs := native.ReferenceMap()
	lib := func(candidates []string) {
		if len(candidates) == 1 {
			out[LibraryEntry(candidates[0])] = true
		}
	}
	visit := celast.NewExprVisitor(func(e celast.Expr) {
		switch e.Kind() {
		case celast.IdentKind:
			if name := e.AsIdent(); o.variables[name] {
				out[VariableEntry(c, name)] = true
			}
		case celast.SelectKind: // authorizer.requestResource, unchecked
			if op := e.AsSelect().Operand(); op.Kind() == celast.IdentKind {
				if name := op.AsIdent() + "." + e.AsSelect().FieldName(); o.variables[name] {
					out[VariableEntry(c, name)] = true
				}
			}
		case celast.CallKind:
			if !checked {
				lib(o.functions[e.AsCall().FunctionName()])
			}
		}
		if ref, ok := refs[e.ID()]; ok {
			if len(ref.OverloadIDs) == 0 && o.variables[ref.Name] {
				out[VariableEntry(c, ref.Name)] = true
			}
			libs := map[string]bool{}
			for _, id := range ref.OverloadIDs {
				for _, l := range o.overloads[id] {
					libs[l] = true
				}
			}
			lib(slices.Sorted(maps.Keys(libs)))
		}
	})
	celast.PostOrderVisit(native.Expr(), visit)
	for _, call := range native.SourceInfo().MacroCalls() {
		if call.Kind() != celast.CallKind {
			continue
		}
		fn := call.AsCall()
		lib(o.macros[macroKey(fn.FunctionName(), len(fn.Args()), fn.IsMemberFunction())])
		celast.PostOrderVisit(call, visit)
	}
	return slices.Sorted(maps.Keys(out))
}

// macroKey is cel-go's key for a macro (parser.makeMacroKey).
func macroKey(name string, args int, receiver bool) string {
	return fmt.Sprintf("%s:%d:%v", name, args, receiver)
}
