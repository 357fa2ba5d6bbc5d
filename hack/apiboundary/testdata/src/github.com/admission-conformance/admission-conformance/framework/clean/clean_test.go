package clean

import "github.com/admission-conformance/admission-conformance/internal/secret" // a test may

var _ = secret.Value
