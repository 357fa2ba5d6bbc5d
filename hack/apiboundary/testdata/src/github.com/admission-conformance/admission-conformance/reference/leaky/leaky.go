package leaky

import "github.com/admission-conformance/admission-conformance/internal/secret" // want `reference/leaky imports internal/secret: the reference implementations stand alone`

const Value = secret.Value
