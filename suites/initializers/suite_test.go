package initializers

import (
	"os"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// TestMain lets this test binary be its own hollow nodes.
func TestMain(m *testing.M) {
	nodeset.RunIfChild()
	os.Exit(m.Run())
}

// TestInitializers runs this suite's specs on an embedded cluster of its own
// (with the reference initializers installed and one hollow node), or on the
// cluster named by ADMISSION_CONFORMANCE_KUBECONFIG.
func TestInitializers(t *testing.T) { suitetest.Run(t, "initializers") }
