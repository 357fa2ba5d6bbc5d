package observability

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// TestObservability runs this package's specs of the webhooks suite on an embedded
// cluster of its own, or on the cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestObservability(t *testing.T) { suitetest.Run(t, "webhooks") }
