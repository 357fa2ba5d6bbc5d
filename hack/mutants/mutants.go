// Package mutants is the project's mutation kit: small literal edits to the
// pinned Kubernetes modules that imitate a vendor's subtly wrong admission
// code. Each mutant names the specs that must catch it; cmd/mutation builds
// the harness against each mutant in turn and runs those specs.
package mutants

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Mutant is one deliberate fault.
type Mutant struct {
	// Name is unique across all files, lower-case words joined by dashes.
	Name string `json:"name"`
	// Clause is the contract clause (internal/contract) the fault breaks.
	Clause string `json:"clause"`
	// Breaks says in one line what goes wrong, for the table.
	Breaks string `json:"breaks"`
	// Module is the module path whose pinned copy is edited.
	Module string `json:"module"`
	// File is the path of the edited file inside the module.
	File string `json:"file"`
	// Find is literal text that occurs exactly once in File.
	Find string `json:"find"`
	// Replace is what Find becomes.
	Replace string `json:"replace"`
	// And are further edits of the same file, made in order after the
	// first (for a fault that moves a line, say).
	And []Edit `json:"and,omitempty"`
	// Specs are the ShortNames of the specs run against the mutant.
	Specs []string `json:"specs"`
	// RunArgs are extra `run-conformance run` flags.
	RunArgs []string `json:"runArgs,omitempty"`
	// Equivalent, when set, says why the fault cannot be observed through
	// the API; such a mutant is listed but not expected to be killed.
	Equivalent string `json:"equivalent,omitempty"`
	// Source is the YAML file the mutant came from.
	Source string `json:"-"`
}

// Edit is one literal replacement.
type Edit struct {
	Find    string `json:"find"`
	Replace string `json:"replace"`
}

// Modules the kit may edit: the ones whose pinned copies it prepares.
var Modules = []string{"k8s.io/apiserver", "k8s.io/kubernetes"}

var mutantName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Validate checks the mutant's own fields.
func (m Mutant) Validate() error {
	if !mutantName.MatchString(m.Name) {
		return fmt.Errorf("mutant %q: name must be lower-case words joined by dashes", m.Name)
	}
	known := false
	for _, mod := range Modules {
		known = known || mod == m.Module
	}
	switch {
	case !known:
		return fmt.Errorf("mutant %s: module %q is not one of %s", m.Name, m.Module, strings.Join(Modules, ", "))
	case m.File == "" || filepath.IsAbs(m.File) || strings.Contains(m.File, ".."):
		return fmt.Errorf("mutant %s: file must be a relative path inside the module, got %q", m.Name, m.File)
	case m.Find == "":
		return fmt.Errorf("mutant %s: find is empty", m.Name)
	case m.Find == m.Replace:
		return fmt.Errorf("mutant %s: replace equals find, so nothing changes", m.Name)
	case m.Breaks == "" || m.Clause == "":
		return fmt.Errorf("mutant %s: breaks and clause are required", m.Name)
	case len(m.Specs) == 0 && m.Equivalent == "":
		return fmt.Errorf("mutant %s: name the specs that must kill it, or say why it is equivalent", m.Name)
	}
	return nil
}

// Apply returns src with the mutation made; Find must occur exactly once,
// so a mutant that no longer fits the pinned source is an error, never a
// silent no-op.
func (m Mutant) Apply(src []byte) ([]byte, error) {
	for i, e := range append([]Edit{{Find: m.Find, Replace: m.Replace}}, m.And...) {
		switch n := bytes.Count(src, []byte(e.Find)); n {
		case 1:
			src = bytes.Replace(src, []byte(e.Find), []byte(e.Replace), 1)
		case 0:
			return nil, fmt.Errorf("mutant %s: edit %d: find text not in %s %s (the pinned source changed? update the mutant)", m.Name, i+1, m.Module, m.File)
		default:
			return nil, fmt.Errorf("mutant %s: edit %d: find text occurs %d times in %s %s: make it unique", m.Name, i+1, n, m.Module, m.File)
		}
	}
	return src, nil
}

// LabelFilter selects the mutant's specs in a run.
func (m Mutant) LabelFilter() string {
	parts := make([]string, len(m.Specs))
	for i, s := range m.Specs {
		parts[i] = "spec:" + s
	}
	return strings.Join(parts, " || ")
}

// Load reads every *.yaml file in dir, validates each mutant and checks
// that names are unique. Mutants come back sorted by file, then as listed.
func Load(dir string) ([]Mutant, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no mutants: %s holds no *.yaml file", dir)
	}
	sort.Strings(files)
	var all []Mutant
	seen := map[string]string{}
	var errs []error
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var ms []Mutant
		if err := yaml.UnmarshalStrict(raw, &ms); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, m := range ms {
			m.Source = filepath.Base(file)
			if err := m.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", m.Source, err))
				continue
			}
			if other, dup := seen[m.Name]; dup {
				errs = append(errs, fmt.Errorf("%s: mutant %s is also in %s", m.Source, m.Name, other))
				continue
			}
			seen[m.Name] = m.Source
			all = append(all, m)
		}
	}
	return all, errors.Join(errs...)
}

// Select returns the mutants called names (all when names is empty).
func Select(all []Mutant, names []string) ([]Mutant, error) {
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]Mutant{}
	for _, m := range all {
		byName[m.Name] = m
	}
	var out []Mutant
	for _, n := range names {
		m, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("no mutant called %q: see hack/mutants/*.yaml", n)
		}
		out = append(out, m)
	}
	return out, nil
}
