package testhook_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// Outside the harness's own tests no hook is set, and every point does
// nothing.
func ExamplePanic() {
	testhook.Panic(testhook.Boot)
	fmt.Println(testhook.Fault(testhook.WebhookErrorsOnEvenRepetitions))
	// Output: false
}
