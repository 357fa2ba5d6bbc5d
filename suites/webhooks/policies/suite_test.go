package policies

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// TestPolicies runs this package's specs of the webhooks suite on an embedded
// cluster of its own, or on the cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestPolicies(t *testing.T) { suitetest.Run(t, "webhooks") }
