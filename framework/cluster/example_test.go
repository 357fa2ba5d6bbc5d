package cluster_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
)

// A cluster's /version may suffix its minor ("37+"): the features a version
// brings are looked up by the numbers.
func ExampleParseMinor() {
	major, minor, err := cluster.ParseMinor("1", "37+")
	fmt.Println(major, minor, err)
	// Output: 1 37 <nil>
}
