package conformance

import (
	"github.com/admission-conformance/admission-conformance/internal/secret" // the door may
	"github.com/admission-conformance/admission-conformance/suites/some"     // want `conformance imports suites/some: the door runs the engine`
)

const Value = secret.Value + some.Value
