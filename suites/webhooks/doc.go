// Package webhooks is the webhooks suite: it checks the webhook contract of
// seed 002 (dynamic admission configuration): failure policies and their
// timeouts, what matches, that a configuration change is enforced within its
// bound on every apiserver, that an unready webhook does not block the
// cluster, dry runs, AdmissionReview versions, and that webhooks cannot lock
// configurations; and admission policies, their CEL, static manifests and
// what admission leaves observable.
//
// The specs live in one package per area, below this one, each with its own
// go test entry; importing this package registers them all. One file per
// behaviour; helpers shared by several areas are in suites/internal/speckit.
package webhooks

import (
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/configurations"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/failure"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/matching"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/mutatingpolicies"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/observability"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/policies"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/policycel"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/review"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks/static"
)
