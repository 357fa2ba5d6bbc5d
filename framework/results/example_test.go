package results_test

import (
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// A timing spec records what it measured with its bound
// (harness.Framework.Record); a value outside its bounds fails the case.
func ExampleMeasurement() {
	m := results.Measurement{Name: "acme-denial-enforced", Unit: "s", Value: 0.2, Bound: ptr.To(1.0),
		Labels: map[string]string{"replica": "0"}}
	fmt.Println(m.Within())
	m.Value = 1.5
	fmt.Println(m.Within())
	// Output:
	// true
	// false
}
