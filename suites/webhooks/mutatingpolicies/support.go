package mutatingpolicies

import (
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// expectPolicyDenialContaining is speckit.ExpectPolicyDenial for a message that
// ends with text the pinned release does not fix (a library's wording):
// the message must contain prefix.
func expectPolicyDenialContaining(err error, code int32, reason metav1.StatusReason, prefix string) {
	s := speckit.ExpectDenialStatus(err, code, reason, prefix)
	gomega.ExpectWithOffset(1, s.Message).To(gomega.ContainSubstring(prefix), "the denial's message")
}
