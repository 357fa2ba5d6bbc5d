package runobjects_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/runobjects"
)

// The cluster-level kinds a run labels with its run ID, in the order the
// sweep deletes them; a spec creating one of them cleans it up itself.
func ExampleKinds() {
	for _, k := range runobjects.Kinds() {
		fmt.Println(k.What)
	}
	// Output:
	// mutating webhook configurations
	// validating webhook configurations
	// validating admission policy bindings
	// validating admission policies
	// mutating admission policy bindings
	// mutating admission policies
	// custom resource definitions
	// runtime classes
	// namespaces
}
