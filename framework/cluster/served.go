package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
)

// ServedFeatures are the optional features that a cluster of real
// kube-apiservers has by what discovery through config shows:
// MutatingAdmissionPolicy where its API is served (admissionregistration.k8s.io/v1,
// from 1.36; not on older releases nor where --runtime-config turns it off),
// and every feature whose Since the server version reaches
// (features.ByVersion). Providers of such clusters put them in their
// Capabilities, so the specs of what the cluster's release does not have are
// reported not-supported.
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
	v, err := d.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("server version: %w", err)
	}
	major, minor, err := ParseMinor(v.Major, v.Minor)
	if err != nil {
		return nil, fmt.Errorf("server version %s: %w", v.GitVersion, err)
	}
	return s.Union(features.ByVersion(major, minor)), nil
}

// ParseMinor reads /version's major and minor fields, which some
// distributions suffix with "+" ("28+").
func ParseMinor(major, minor string) (int, int, error) {
	ma, err := strconv.Atoi(strings.TrimSuffix(major, "+"))
	if err != nil {
		return 0, 0, fmt.Errorf("major %q is not a number", major)
	}
	mi, err := strconv.Atoi(strings.TrimSuffix(minor, "+"))
	if err != nil {
		return 0, 0, fmt.Errorf("minor %q is not a number", minor)
	}
	return ma, mi, nil
}
