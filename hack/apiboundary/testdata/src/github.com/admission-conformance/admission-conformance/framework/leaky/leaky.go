package leaky

import (
	"github.com/admission-conformance/admission-conformance/conformance"     // want `framework/leaky imports conformance: a public package imports only public packages`
	"github.com/admission-conformance/admission-conformance/internal/secret" // want `framework/leaky imports internal/secret: a public package imports only public packages`
	"github.com/admission-conformance/admission-conformance/suites/some"     // want `framework/leaky imports suites/some: a public package`
)

const Value = secret.Value + some.Value + conformance.Value
