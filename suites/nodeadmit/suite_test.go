package nodeadmit

import (
	"os"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// TestMain lets this test binary be its own hollow nodes and fake plugins.
func TestMain(m *testing.M) {
	nodeset.RunIfChild()
	os.Exit(m.Run())
}

// TestNodeadmit runs this suite's specs on an embedded cluster of its own
// (with ADMISSION_CONFORMANCE_NODES hollow nodes, default 1), or on the
// cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestNodeadmit(t *testing.T) { suitetest.Run(t, "nodeadmit") }
