package policycel

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// TestPolicyCEL runs this package's specs of the webhooks suite on an embedded
// cluster of its own, or on the cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestPolicyCEL(t *testing.T) { suitetest.Run(t, "webhooks") }
