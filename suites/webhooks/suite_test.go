package webhooks

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/harness/suitetest"
)

// TestWebhooks runs this suite's specs on an embedded cluster of its own, or
// on the cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestWebhooks(t *testing.T) { suitetest.Run(t, "webhooks") }
