package access_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
)

// A spec that impersonates declares the identities (spec.Spec.Impersonates):
// the run asks for the right to impersonate exactly those, by name. An own
// identity's rights are required like every other right; an optional one's
// (a member of system:masters) are only offered, and without them the
// spec's cases are reported not supported.
func ExampleForSpecs() {
	acme := spec.Spec{ShortName: "AcmeSeesTheRequester", Impersonates: []identity.Name{identity.CELLimitedUser, identity.ClusterAdmin}}
	own, optional := access.ForSpecs([]spec.Spec{acme})
	for _, a := range own {
		fmt.Println("needed:", a, "for", a.NeededBy())
	}
	for _, o := range optional {
		fmt.Println("optional:", o.Identity.Name, "for", o.Specs)
		for _, a := range o.Access {
			fmt.Println("  ", a)
		}
	}
	// The same rights as the ClusterRole an in-cluster run's account gets.
	for _, r := range access.ClusterRole("acme", own).Rules {
		fmt.Println("rule:", r.APIGroups, r.Resources, r.Verbs, r.ResourceNames)
	}
	// Output:
	// needed: impersonate users admission-conformance:cel-limited for AcmeSeesTheRequester
	// optional: ClusterAdmin for [AcmeSeesTheRequester]
	//    impersonate users admission-conformance:cel-admin
	//    impersonate groups system:masters
	// rule: [] [users] [impersonate] [admission-conformance:cel-limited]
}

// The preflight checks every right of a run and sorts the denied ones: one
// that every run needs stops the run; one that only some specs need leaves
// just their cases not supported.
func ExampleLacking() {
	acme := spec.Spec{ShortName: "AcmeSeesTheRequester", Impersonates: []identity.Name{identity.CELLimitedUser}}
	needed := access.Needed(false, []spec.Spec{acme})
	// What access.Check returns for a user who may not create namespaces,
	// impersonate, or exec into pods.
	denied := []string{
		"create namespaces",
		"impersonate users admission-conformance:cel-limited",
		"create pods/exec",
	}
	everyRun, bySpec := access.Lacking(needed, denied)
	fmt.Println("every run lacks:", everyRun)
	for _, name := range access.SpecNames(bySpec) {
		fmt.Println(name, "lacks:", bySpec[name])
	}
	// Output:
	// every run lacks: [create namespaces]
	// AcmeSeesTheRequester lacks: [impersonate users admission-conformance:cel-limited]
	// ConnectReachesAdmission lacks: [create pods/exec]
	// ReviewRequestContent lacks: [create pods/exec]
}
