// Package acme is the conformance suite of ACME's admission webhooks, an
// imaginary vendor's: a validating webhook that refuses ConfigMaps labelled
// acme.example/forbidden=true and a mutating one that stamps every ConfigMap
// it admits with the acme.example/checked annotation.
//
// It is written with the public packages of admission-conformance only
// (framework/spec, framework/harness, framework/fakewebhook,
// framework/enforce, ...): importing the package registers the suite and its
// specs, and the binary in the parent directory runs them with
// conformance.Main. The fake webhook server plays ACME's webhooks here; a
// real vendor suite would point harness.Hook's URL and CABundle at its own
// service, or run its own server, and keep the rest.
package acme

import (
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Suite is the suite's name. It is registered in a package-level variable's
// initializer, so it exists before the specs below (also package-level
// variables, which name it) register.
var Suite = spec.RegisterSuite("acme")

// The labels and annotations of ACME's contract.
const (
	// ForbiddenLabel set to "true" on a ConfigMap makes ACME's validating
	// webhook refuse it.
	ForbiddenLabel = "acme.example/forbidden"
	// CheckedAnnotation is what ACME's mutating webhook adds.
	CheckedAnnotation = "acme.example/checked"
	// DenyMessage is in the refusal of a forbidden ConfigMap.
	DenyMessage = "acme: configmaps labelled acme.example/forbidden=true are refused"
)
