// Package spec holds the typed metadata every conformance spec carries and
// the registry of all specs, so that `list`, filters and reports work without
// running anything.
package spec

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/identity"
)

// Profile groups specs by who must pass them.
type Profile string

const (
	// Core specs are what every conformant implementation must pass.
	Core Profile = "core"
	// Extended specs check optional features, claimed explicitly or declared
	// by the cluster.
	Extended Profile = "extended"
	// Reference specs check seed contracts that only the project's reference
	// implementations provide.
	Reference Profile = "reference"
)

// Profiles lists the profiles in report order.
var Profiles = []Profile{Core, Extended, Reference}

// ParseProfile validates user input.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown profile %q: use core, extended or reference", s)
}

// BuiltinSuites are the project's own suites (suites/), in run order.
var BuiltinSuites = []string{"ordering", "webhooks", "initializers", "nodeadmit"}

// Suites lists the suite names in run order: the project's own, then those
// a binary registered with RegisterSuite, in the order they registered.
// Read it after main starts; RegisterSuite is its only writer.
var Suites = slices.Clone(BuiltinSuites)

var suiteName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,19}$`)

// RegisterSuite adds a suite of one's own (a vendor's specs, run by a binary
// that calls conformance.Main) after the project's suites, and returns its
// name, so the specs' metadata can name it:
//
//	var acmeSuite = spec.RegisterSuite("acme")
//
//	var denies = spec.Spec{ShortName: "AcmeDeniesForbidden", Suite: acmeSuite, ...}
//
// Call it in a package-level variable's initializer, as above, so it runs
// before the specs that name the suite register (Go initializes a
// package's variables in dependency order, before its init functions).
// It panics if the name is not lower-case letters, digits and dashes (at
// most 20, led by a letter), is "harness" (the run's own entries) or is
// taken.
func RegisterSuite(name string) string {
	if !suiteName.MatchString(name) || name == "harness" {
		panic(fmt.Sprintf("suite %q: a suite name is lower-case letters, digits and dashes, at most 20, led by a letter, and not \"harness\"", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if slices.Contains(Suites, name) {
		panic(fmt.Sprintf("suite %s registered twice", name))
	}
	Suites = append(Suites, name)
	return name
}

// ParseSuite validates user input.
func ParseSuite(s string) (string, error) {
	registry.Lock()
	defer registry.Unlock()
	for _, known := range Suites {
		if known == s {
			return s, nil
		}
	}
	return "", fmt.Errorf("unknown suite %q: use one of %s", s, strings.Join(Suites, ", "))
}

// Spec is the metadata of one conformance spec (one behaviour, one file).
type Spec struct {
	// ShortName is unique across all suites, CamelCase, and is the name
	// reports use.
	ShortName string
	// Suite is one of Suites: one of the project's or one registered with
	// RegisterSuite.
	Suite string
	// Description says in one sentence what the spec checks.
	Description string
	// Features are what the implementation must support for the spec to
	// apply; a spec whose features are missing is reported not-supported.
	Features []features.Name
	// Profile is the profile the spec counts towards.
	Profile Profile
	// Seed names the seed document and clause the spec checks, for example
	// "000 Requirements: object mutations must happen before object validations".
	Seed string
	// Manifests are the fixture files the spec applies.
	Manifests []string
	// Isolation says what the spec may run beside in a parallel run
	// (isolation.go); zero for most specs.
	Isolation Isolation
	// Impersonates are the identities (framework/identity) the spec's cases
	// impersonate: the run asks for the right to impersonate them by name
	// only when the spec is selected. A case impersonating one it does not
	// declare fails; an optional identity whose right the run lacks makes
	// the cases using it not supported.
	Impersonates []identity.Name
}

var shortName = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)

// Validate checks the metadata. Registration panics on an invalid spec:
// that is a bug in the harness, found the moment the binary starts.
func (s Spec) Validate() error {
	if !shortName.MatchString(s.ShortName) {
		return fmt.Errorf("spec %q: ShortName must be CamelCase letters and digits", s.ShortName)
	}
	if _, err := ParseSuite(s.Suite); err != nil {
		return fmt.Errorf("spec %s: %w", s.ShortName, err)
	}
	if _, err := ParseProfile(string(s.Profile)); err != nil {
		return fmt.Errorf("spec %s: %w", s.ShortName, err)
	}
	if s.Description == "" || s.Seed == "" {
		return fmt.Errorf("spec %s: Description and Seed are required", s.ShortName)
	}
	if err := s.Isolation.Validate(); err != nil {
		return fmt.Errorf("spec %s: %w", s.ShortName, err)
	}
	for _, n := range s.Impersonates {
		if _, err := identity.Lookup(n); err != nil {
			return fmt.Errorf("spec %s: %w", s.ShortName, err)
		}
	}
	for _, f := range s.Features {
		feature, err := features.Lookup(string(f))
		if err != nil {
			return fmt.Errorf("spec %s: %w", s.ShortName, err)
		}
		if s.Profile == Core && !feature.Core {
			return fmt.Errorf("spec %s: a core spec may only need core features, %s is not", s.ShortName, f)
		}
	}
	return nil
}

// Labels are the Ginkgo labels that carry the metadata into the run, so
// filters and reports can find a spec's metadata from its labels.
func (s Spec) Labels() []string {
	labels := []string{"spec:" + s.ShortName, "suite:" + s.Suite, "profile:" + string(s.Profile)}
	for _, f := range s.Features {
		labels = append(labels, "feature:"+string(f))
	}
	return labels
}

// registry is written only by Register, from package init functions, and
// read after main starts.
var registry = struct {
	sync.Mutex
	specs map[string]Spec
}{specs: map[string]Spec{}}

// Register adds s to the registry and panics if it is invalid or its
// ShortName is taken.
func Register(s Spec) Spec {
	if err := s.Validate(); err != nil {
		panic(err)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, taken := registry.specs[s.ShortName]; taken {
		panic(fmt.Sprintf("spec %s registered twice", s.ShortName))
	}
	registry.specs[s.ShortName] = s
	return s
}

// All returns every registered spec, by suite order then name.
func All() []Spec {
	registry.Lock()
	defer registry.Unlock()
	out := make([]Spec, 0, len(registry.specs))
	for _, s := range registry.specs {
		out = append(out, s)
	}
	order := map[string]int{}
	for i, s := range Suites {
		order[s] = i
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Suite != out[j].Suite {
			return order[out[i].Suite] < order[out[j].Suite]
		}
		return out[i].ShortName < out[j].ShortName
	})
	return out
}

// Lookup returns the spec called shortName.
func Lookup(shortName string) (Spec, bool) {
	registry.Lock()
	defer registry.Unlock()
	s, ok := registry.specs[shortName]
	return s, ok
}

// FromLabels finds the spec a Ginkgo spec belongs to by its "spec:" label.
func FromLabels(labels []string) (Spec, bool) {
	for _, l := range labels {
		if name, ok := strings.CutPrefix(l, "spec:"); ok {
			return Lookup(name)
		}
	}
	return Spec{}, false
}
