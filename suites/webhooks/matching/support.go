package matching

import (
	"encoding/json"

	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
)

// receivedObject is the object a webhook received in call, decoded.
func receivedObject(call fakewebhook.Call) map[string]any {
	var obj map[string]any
	gomega.ExpectWithOffset(1, json.Unmarshal(call.Object, &obj)).To(gomega.Succeed(), "the object of the review")
	return obj
}

// namespaceSelected is the label the selectors under test select on; the
// objectSelector keeps each case to its own namespaces by speckit.ProbeLabel.
const namespaceSelected = "admission-conformance.io/namespace-selected"
