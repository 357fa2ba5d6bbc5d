package apiboundary

import (
	"go/ast"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzer reports each import that crosses the API's boundary (Forbidden),
// so `go vet -vettool` (make lint, through cmd/apiboundary-vet) fails on
// it at the import line, before any test runs. Test files are left out: a
// public package's own tests may use the harness's internals.
var Analyzer = &analysis.Analyzer{
	Name: "apiboundary",
	Doc:  "reports imports that cross the public API's boundary: framework/ into internal/, reference/ into the harness",
	Run:  run,
}

func run(pass *analysis.Pass) (any, error) {
	importer, ok := Local(pass.Pkg.Path())
	if !ok {
		return nil, nil
	}
	for _, f := range pass.Files {
		if strings.HasSuffix(pass.Fset.Position(f.Pos()).Filename, "_test.go") {
			continue
		}
		for _, imp := range f.Imports {
			check(pass, importer, imp)
		}
	}
	return nil, nil
}

func check(pass *analysis.Pass, importer string, imp *ast.ImportSpec) {
	path, err := strconv.Unquote(imp.Path.Value)
	if err != nil {
		return
	}
	imported, ok := Local(path)
	if !ok {
		return
	}
	if why := Forbidden(importer, imported); why != "" {
		pass.Reportf(imp.Pos(), "%s imports %s: %s", importer, imported, why)
	}
}
