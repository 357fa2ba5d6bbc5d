package spec_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// A vendor's suite registers its name once, in a package-level variable, so
// that its specs (also package-level variables) can name it.
var acmeSuite = spec.RegisterSuite("acme-example")

// Every spec carries its metadata: a unique CamelCase ShortName, its suite,
// one sentence of description, the features it needs, its profile and the
// clause of the contract it checks. harness.Describe registers it (Register
// here, to show the registry without a cluster).
func Example() {
	s := spec.Register(spec.Spec{
		ShortName:   "AcmeExampleDeniesForbidden",
		Suite:       acmeSuite,
		Description: "A ConfigMap labelled acme.example/forbidden=true is refused.",
		Features:    []features.Name{features.ValidatingWebhook},
		Profile:     spec.Core,
		Seed:        "ACME admission contract 1: forbidden configmaps are refused",
	})
	fmt.Println(s.Labels())
	got, _ := spec.Lookup("AcmeExampleDeniesForbidden")
	fmt.Println(got.Suite, got.Profile)
	// Output:
	// [spec:AcmeExampleDeniesForbidden suite:acme-example profile:core feature:ValidatingWebhook]
	// acme-example core
}
