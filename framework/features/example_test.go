package features_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/features"
)

// A cluster declares a set of features; a spec needs some: the ones the
// cluster lacks make its cases not supported (never passed).
func Example() {
	declared := features.NewSet(features.MutatingWebhook, features.ValidatingWebhook)
	need := []features.Name{features.ValidatingWebhook, features.NodeAdmission}
	fmt.Println(declared.Missing(need))
	f, _ := features.Lookup("ValidatingWebhook")
	fmt.Println(f.Core)
	_, err := features.Lookup("NoSuchFeature")
	fmt.Println(err != nil)
	// Output:
	// [NodeAdmission]
	// true
	// true
}
