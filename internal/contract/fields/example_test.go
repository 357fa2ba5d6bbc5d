package fields_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
)

// The field paths a document sets, by the inventory of its type: what the
// fake webhook server records for each call (fakewebhook.Call.RequestFields)
// and the run's field coverage counts.
func ExamplePaths() {
	paths, err := fields.Paths("AdmissionResponse", []byte(`{"uid":"u","allowed":false,"status":{"code":403,"message":"refused"}}`))
	if err != nil {
		panic(err)
	}
	for _, p := range paths {
		fmt.Println(p)
	}
	// Output:
	// AdmissionResponse.allowed
	// AdmissionResponse.status.code
	// AdmissionResponse.status.message
	// AdmissionResponse.uid
}
