// Command estimates writes the schedule's kept estimates
// (internal/parallel/estimates.json) from a full default run's results:
//
//	go run ./hack/estimates RESULTS.json > internal/parallel/estimates.json
//
// (make estimates runs the full run and this.)
package main

import (
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: estimates RESULTS.json > internal/parallel/estimates.json")
		os.Exit(2)
	}
	res, err := results.Read(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "estimates: %v\n", err)
		os.Exit(2)
	}
	e := parallel.EstimatesOf(res)
	if len(e.Seconds) == 0 {
		fmt.Fprintf(os.Stderr, "estimates: no case ran in %s\n", os.Args[1])
		os.Exit(2)
	}
	os.Stdout.Write(e.Marshal())
}
