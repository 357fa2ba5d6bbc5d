package ordering

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// TestOrdering runs this suite's specs on an embedded cluster of its own, or
// on the cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestOrdering(t *testing.T) { suitetest.Run(t, "ordering") }
