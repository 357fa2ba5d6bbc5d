package clean

import "github.com/admission-conformance/admission-conformance/reference/leaky"

const Value = leaky.Value
