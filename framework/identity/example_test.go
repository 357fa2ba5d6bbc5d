package identity_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/identity"
)

// A spec declares the identities it impersonates (spec.Spec.Impersonates):
// only registered ones, so the run asks for exactly those rights.
func ExampleLookup() {
	_, err := identity.Lookup("no-such-identity")
	fmt.Println(err != nil, len(identity.All()) > 0)
	// Output: true true
}
