// Package coverage measures the suites against the implementation's own
// code: which statements of the pinned admission code (Packages) a full run
// executes, and which spec executes each (make coverage). Every block a run
// leaves uncovered is decided in decisions.yaml: out of scope or
// unreachable on the clusters the harness runs, with the reason; the kept
// snapshot of the uncovered blocks (uncovered.json) lets a unit test fail
// when one is undecided. The generated mutants of the mutation kit
// (hack/mutants/generate) are placed on the covered statements and run
// against the specs that cover them.
package coverage

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/cover"
)

// Block is one basic block of a coverage profile.
type Block struct {
	// File is the file's import path form (module path + path in module),
	// as Go's coverage profiles name it.
	File string `json:"file"`
	// Start and End are line.column positions, as in the profile.
	StartLine int `json:"startLine"`
	StartCol  int `json:"startCol"`
	EndLine   int `json:"endLine"`
	EndCol    int `json:"endCol"`
	// Statements is how many statements the block holds.
	Statements int `json:"statements"`
	// Func is the function the block is in ("Type.Method", "Func", or
	// "<file scope>" for variable initializers).
	Func string `json:"func"`
	// Count is how often the block ran (0: uncovered).
	Count int `json:"count,omitempty"`
}

// Key identifies a block within the pinned sources.
func (b Block) Key() string {
	return fmt.Sprintf("%s:%d.%d,%d.%d", b.File, b.StartLine, b.StartCol, b.EndLine, b.EndCol)
}

// Package is the import path of the block's package.
func (b Block) Package() string { return path.Dir(b.File) }

// Profile is a merged coverage profile, its blocks by file in order.
type Profile struct {
	Mode   string
	Blocks []Block
}

// ReadProfile reads a text coverage profile (go tool covdata textfmt),
// keeping the blocks of the measured packages (Measured).
func ReadProfile(file string) (Profile, error) {
	ps, err := cover.ParseProfiles(file)
	if err != nil {
		return Profile{}, fmt.Errorf("read coverage profile %s: %w", file, err)
	}
	var out Profile
	for _, p := range ps {
		out.Mode = p.Mode
		if !Measured(path.Dir(p.FileName)) {
			continue
		}
		for _, b := range p.Blocks {
			out.Blocks = append(out.Blocks, Block{File: p.FileName, StartLine: b.StartLine, StartCol: b.StartCol,
				EndLine: b.EndLine, EndCol: b.EndCol, Statements: b.NumStmt, Count: b.Count})
		}
	}
	return out, nil
}

// Covered is the set of block keys that ran at least once.
func (p Profile) Covered() map[string]bool {
	out := map[string]bool{}
	for _, b := range p.Blocks {
		if b.Count > 0 {
			out[b.Key()] = true
		}
	}
	return out
}

// PackageStats is the statement coverage of one package.
type PackageStats struct {
	Package    string `json:"package"`
	Statements int    `json:"statements"`
	Covered    int    `json:"covered"`
}

// Percent is the share of statements covered, 0-100.
func (s PackageStats) Percent() float64 {
	if s.Statements == 0 {
		return 0
	}
	return 100 * float64(s.Covered) / float64(s.Statements)
}

// Stats is the statement coverage per package, sorted by package, and in
// all.
func (p Profile) Stats() (pkgs []PackageStats, total PackageStats) {
	by := map[string]*PackageStats{}
	for _, b := range p.Blocks {
		s := by[b.Package()]
		if s == nil {
			s = &PackageStats{Package: b.Package()}
			by[b.Package()] = s
		}
		s.Statements += b.Statements
		if b.Count > 0 {
			s.Covered += b.Statements
		}
	}
	total.Package = "all"
	for _, s := range by {
		pkgs = append(pkgs, *s)
		total.Statements += s.Statements
		total.Covered += s.Covered
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Package < pkgs[j].Package })
	return pkgs, total
}

// Uncovered lists the blocks that never ran.
func (p Profile) Uncovered() []Block {
	var out []Block
	for _, b := range p.Blocks {
		if b.Count == 0 {
			out = append(out, b)
		}
	}
	return out
}

// SourceDirs maps module paths to the directories holding their sources.
type SourceDirs map[string]string

// Resolve is the file on disk for a profile's file name: the module with
// the longest path that prefixes it.
func (d SourceDirs) Resolve(file string) (string, error) {
	best := ""
	for mod := range d {
		if (file == mod || strings.HasPrefix(file, mod+"/")) && len(mod) > len(best) {
			best = mod
		}
	}
	if best == "" {
		return "", fmt.Errorf("no module source for %s", file)
	}
	return filepath.Join(d[best], filepath.FromSlash(strings.TrimPrefix(file, best+"/"))), nil
}

// NameFunctions fills in Func for every block from the sources.
func NameFunctions(blocks []Block, dirs SourceDirs) error {
	byFile := map[string][]int{}
	for i, b := range blocks {
		byFile[b.File] = append(byFile[b.File], i)
	}
	for file, idx := range byFile {
		onDisk, err := dirs.Resolve(file)
		if err != nil {
			return err
		}
		funcs, err := functionsOf(onDisk)
		if err != nil {
			return err
		}
		for _, i := range idx {
			blocks[i].Func = funcs.at(blocks[i].StartLine, blocks[i].StartCol)
		}
	}
	return nil
}

// funcRange is where one top-level function declaration lies.
type funcRange struct {
	name                string
	startLine, startCol int
	endLine, endCol     int
}

type fileFuncs []funcRange

func (fs fileFuncs) at(line, col int) string {
	for _, f := range fs {
		if before(f.startLine, f.startCol, line, col) && before(line, col, f.endLine, f.endCol) {
			return f.name
		}
	}
	return "<file scope>"
}

func before(l1, c1, l2, c2 int) bool { return l1 < l2 || (l1 == l2 && c1 <= c2) }

// functionsOf lists the top-level functions of a Go file by position.
func functionsOf(file string) (fileFuncs, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out fileFuncs
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		s, e := fset.Position(fd.Pos()), fset.Position(fd.End())
		out = append(out, funcRange{name: FuncName(fd), startLine: s.Line, startCol: s.Column, endLine: e.Line, endCol: e.Column})
	}
	return out, nil
}

// FuncName is "Recv.Name" for a method (pointer or not, type parameters
// dropped) and "Name" for a function.
func FuncName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}
