package cluster

import (
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
)

// ServedFeatures are the optional features that a cluster of real
// kube-apiservers has exactly when it serves their API, as discovery through
// config shows: MutatingAdmissionPolicy (admissionregistration.k8s.io/v1,
// from 1.36; not on older releases nor where --runtime-config turns it off).
// Providers of such clusters put them in their Capabilities, so the specs
// of an API the cluster does not serve are reported not-supported.
func ServedFeatures(config *rest.Config) (features.Set, error) {
	d, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	s := features.NewSet()
	served, err := mutatingpolicy.Served(d)
	if err != nil {
		return nil, fmt.Errorf("feature %s: %w", features.MutatingAdmissionPolicy, err)
	}
	if served {
		s[features.MutatingAdmissionPolicy] = struct{}{}
	}
	return s, nil
}
