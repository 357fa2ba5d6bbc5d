package generate

import (
	"fmt"
	"go/constant"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/packages"
)

// Block is a covered range of a file, as coverage profiles give it.
type Block struct {
	StartLine, StartCol, EndLine, EndCol int
}

// Covered maps a profile file name to its covered blocks.
type Covered map[string][]Block

// At is the CoveredAt of one file.
func (c Covered) At(file string) CoveredAt {
	blocks := c[file]
	return func(line, col int) bool {
		for _, b := range blocks {
			if (line > b.StartLine || line == b.StartLine && col >= b.StartCol) &&
				(line < b.EndLine || line == b.EndLine && col < b.EndCol) {
				return true
			}
		}
		return false
	}
}

// Source is a loaded file: where it is on disk and its package.
type Source struct {
	Path    string // on disk
	Package string // import path
	Name    string // package name
	// Plugin is the admission plugin the package registers, from its
	// package-level constant PluginName (every compiled-in plugin of
	// k8s.io/kubernetes/plugin/pkg/admission declares one), if any.
	Plugin string
}

// Sites type-checks the packages matching patterns in the module at dir
// and returns every site in a covered block, with the files they are in
// (by profile name).
func Sites(dir string, patterns []string, covered Covered) ([]Site, map[string]Source, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  dir,
		Env:  append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("load %v: %w", patterns, err)
	}
	var sites []Site
	files := map[string]Source{}
	var errs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
		for _, f := range p.Syntax {
			onDisk := p.Fset.Position(f.Pos()).Filename
			name := path.Join(p.PkgPath, filepath.Base(onDisk))
			if _, ok := covered[name]; !ok {
				continue
			}
			src, err := os.ReadFile(onDisk)
			if err != nil {
				return nil, nil, err
			}
			files[name] = Source{Path: onDisk, Package: p.PkgPath, Name: p.Name, Plugin: pluginName(p.Types)}
			sites = append(sites, FileSites(name, p.Fset, f, src, p.Types, p.TypesInfo, covered.At(name))...)
		}
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("type-checking the admission packages: %s", errs[0])
	}
	sort.SliceStable(sites, func(i, j int) bool {
		if sites[i].File != sites[j].File {
			return sites[i].File < sites[j].File
		}
		return sites[i].start < sites[j].start
	})
	return sites, files, nil
}

// pluginName is the value of the package's constant PluginName, empty if
// it has none.
func pluginName(pkg *types.Package) string {
	if pkg == nil {
		return ""
	}
	c, ok := pkg.Scope().Lookup("PluginName").(*types.Const)
	if !ok || c.Val().Kind() != constant.String {
		return ""
	}
	return constant.StringVal(c.Val())
}
