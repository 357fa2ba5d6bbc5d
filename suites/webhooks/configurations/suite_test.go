package configurations

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// TestConfigurations runs this package's specs of the webhooks suite on an embedded
// cluster of its own, or on the cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestConfigurations(t *testing.T) { suitetest.Run(t, "webhooks") }
