// Package features is the one registry of feature names. Specs name the
// features they need; clusters declare the ones they can show; users claim
// the ones their implementation supports. A name that is not registered here
// is an error wherever it appears.
package features

import (
	"fmt"
	"sort"
	"strings"
)

// Name identifies a feature.
type Name string

// Feature describes one feature.
type Feature struct {
	Name Name
	// Core features are part of what every conformant implementation must
	// support, so specs that need only core features are never reported
	// not-supported.
	Core        bool
	Description string
	// Since is the first Kubernetes minor ("1.37") whose kube-apiserver has
	// the behaviour on by default. A cluster whose server version is at least
	// Since declares the feature (cluster.ServedFeatures) unless
	// ProviderSetUp says the provider must also set something up; an older
	// cluster does not, so the specs needing it are reported not-supported
	// there, never failed.
	Since string
	// ProviderSetUp is true for features that need more than the version:
	// files, flags or mounts the cluster's provider arranges (and then
	// declares the feature itself).
	ProviderSetUp bool
}

// The registered features.
const (
	MutatingWebhook            Name = "MutatingWebhook"
	ValidatingWebhook          Name = "ValidatingWebhook"
	WebhookMatchConditions     Name = "WebhookMatchConditions"
	ValidatingAdmissionPolicy  Name = "ValidatingAdmissionPolicy"
	MutatingAdmissionPolicy    Name = "MutatingAdmissionPolicy"
	WebhookConfigurationOrder  Name = "WebhookConfigurationOrder"
	ParallelValidatingWebhooks Name = "ParallelValidatingWebhooks"
	AuditLog                   Name = "AuditLog"
	APIServerMetrics           Name = "APIServerMetrics"
	MultipleAPIServers         Name = "MultipleAPIServers"
	Scheduler                  Name = "Scheduler"
	ControllerManager          Name = "ControllerManager"
	NodeAdmission              Name = "NodeAdmission"
	NodeAdmissionPlugins       Name = "NodeAdmissionPlugins"
	ReferenceInitializers      Name = "ReferenceInitializers"
	HostWebhooksReachable      Name = "HostWebhooksReachable"
	WebhookServiceReference    Name = "WebhookServiceReference"
	// Admission features new in Kubernetes 1.37 (read from the v1.37.2
	// sources; each one's gate is named in its description).
	StaticAdmissionManifests        Name = "StaticAdmissionManifests"
	WebhookRoundTripLoadBalancing   Name = "WebhookRoundTripLoadBalancing"
	WebhookVirtualResourcesExcluded Name = "WebhookVirtualResourcesExcluded"
	NodeDeclaredFeatures            Name = "NodeDeclaredFeatures"
	// Admission features new in Kubernetes 1.38 (read from the
	// v1.38.0-beta.0 sources).
	ConditionalAuthorization Name = "ConditionalAuthorization"
	// A 1.37 fix, not a gate: kube-apiserver 1.36 records only the first
	// Audit failure of a request (kubernetes PR 140001).
	PolicyAuditAllFailures Name = "PolicyAuditAllFailures"
)

var registry = map[Name]Feature{
	MutatingWebhook:            {Core: true, Description: "MutatingAdmissionWebhook plugin with admissionregistration.k8s.io/v1 configurations"},
	ValidatingWebhook:          {Core: true, Description: "ValidatingAdmissionWebhook plugin with admissionregistration.k8s.io/v1 configurations"},
	WebhookMatchConditions:     {Core: true, Description: "CEL matchConditions on webhooks (GA in 1.30)"},
	ValidatingAdmissionPolicy:  {Core: true, Description: "ValidatingAdmissionPolicy and bindings (GA in 1.30)"},
	MutatingAdmissionPolicy:    {Description: "MutatingAdmissionPolicy and bindings (GA in 1.36; real clusters declare it where discovery shows admissionregistration.k8s.io/v1 mutatingadmissionpolicies)"},
	WebhookConfigurationOrder:  {Description: "mutating webhook configurations are called in name order (upstream behaviour, not an API guarantee)"},
	ParallelValidatingWebhooks: {Description: "validating webhooks of one request are called in parallel"},
	AuditLog:                   {Description: "the harness can read each apiserver's audit log"},
	APIServerMetrics:           {Description: "the harness can read each apiserver's /metrics"},
	MultipleAPIServers:         {Description: "the cluster runs more than one apiserver and each can be reached directly"},
	Scheduler:                  {Description: "a scheduler binds pods"},
	ControllerManager:          {Description: "a controller manager runs (namespaces finish deleting, default service accounts exist)"},
	NodeAdmission:              {Description: "nodes with real kubelet admission code accept pods by spec.nodeName"},
	NodeAdmissionPlugins:       {Description: "nodes host KEP-2823 node-local pod admission plugins"},
	ReferenceInitializers:      {Description: "the project's reference implementation of the seed's initializers is installed"},
	HostWebhooksReachable:      {Description: "the apiservers can call webhook servers the harness runs on this host"},
	WebhookServiceReference:    {ProviderSetUp: true, Description: "the apiservers call a webhook named by clientConfig.service through a Service whose EndpointSlice points at this host (the embedded cluster routes to endpoints itself: kube-apiserver --enable-aggregator-routing)"},
	StaticAdmissionManifests: {Since: "1.37", ProviderSetUp: true,
		Description: "webhooks and policies loaded from staticManifestsDir files (gate ManifestBasedAdmissionControlConfig, beta and on by default in 1.37); the provider gives every apiserver the directories and lets the harness write them"},
	WebhookRoundTripLoadBalancing: {Since: "1.37", ProviderSetUp: true,
		Description: "the apiservers pick a Service webhook's endpoint for every request, not once per connection (gate WebhookRoundTripLoadBalancing, beta and on by default in 1.37), choosing among the endpoints themselves (kube-apiserver --enable-aggregator-routing; without it they call the ClusterIP and the proxy picks per connection)"},
	WebhookVirtualResourcesExcluded: {Since: "1.37",
		Description: "webhooks are never called for the authentication and authorization review resources (gate ExcludeAdmissionWebhookVirtualResources, beta and on by default in 1.37)"},
	NodeDeclaredFeatures: {Since: "1.37",
		Description: "nodes declare their features, admission (NodeDeclaredFeatureValidator, PodResizeValidator) and the kubelet check pods against them (gate NodeDeclaredFeatures, GA in 1.37)"},
	ConditionalAuthorization: {Since: "1.38", ProviderSetUp: true,
		Description: "authorizers may allow a request under conditions on its object, which the AuthorizationConditionsEnforcer admission plugin enforces in the validating phase (gate ConditionalAuthorization, alpha and off in 1.38, KEP-5681); the provider turns the gate on and gives the apiservers an authorization configuration with a webhook authorizer the harness fakes. No provider sets it up yet: not supported everywhere"},
	PolicyAuditAllFailures: {Since: "1.37",
		Description: "every Audit failure of a request's ValidatingAdmissionPolicy bindings is in its one validation_failure audit annotation (kubernetes PR 140001, no gate; 1.36 and older keep only the first)"},
}

// Lookup returns the registered feature called name.
func Lookup(name string) (Feature, error) {
	f, ok := registry[Name(name)]
	if !ok {
		return Feature{}, fmt.Errorf("unknown feature %q: run 'run-conformance list --features' for the known ones", name)
	}
	f.Name = Name(name)
	return f, nil
}

// All returns every registered feature sorted by name.
func All() []Feature {
	out := make([]Feature, 0, len(registry))
	for n, f := range registry {
		f.Name = n
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ByVersion returns the features a kube-apiserver of minor version
// major.minor has on by default and that need nothing from the provider.
func ByVersion(major, minor int) Set {
	s := Set{}
	for n, f := range registry {
		if f.Since == "" || f.ProviderSetUp {
			continue
		}
		if AtLeast(major, minor, f.Since) {
			s[n] = struct{}{}
		}
	}
	return s
}

// AtLeast reports whether major.minor is at least since ("1.37"). A
// malformed since is never reached.
func AtLeast(major, minor int, since string) bool {
	var sMajor, sMinor int
	if _, err := fmt.Sscanf(since, "%d.%d", &sMajor, &sMinor); err != nil {
		return false
	}
	return major > sMajor || (major == sMajor && minor >= sMinor)
}

// Set is a set of feature names.
type Set map[Name]struct{}

// NewSet returns a set holding names.
func NewSet(names ...Name) Set {
	s := Set{}
	for _, n := range names {
		s[n] = struct{}{}
	}
	return s
}

// Parse turns user input (names separated by commas) into a set, rejecting
// unknown names.
func Parse(names []string) (Set, error) {
	s := Set{}
	for _, raw := range names {
		for _, n := range strings.Split(raw, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			f, err := Lookup(n)
			if err != nil {
				return nil, err
			}
			s[f.Name] = struct{}{}
		}
	}
	return s, nil
}

// Has reports whether n is in the set.
func (s Set) Has(n Name) bool { _, ok := s[n]; return ok }

// Union returns a new set with the members of both.
func (s Set) Union(o Set) Set {
	out := Set{}
	for n := range s {
		out[n] = struct{}{}
	}
	for n := range o {
		out[n] = struct{}{}
	}
	return out
}

// Sorted returns the members in name order.
func (s Set) Sorted() []Name {
	out := make([]Name, 0, len(s))
	for n := range s {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Missing returns the names in need that are neither core nor in s.
func (s Set) Missing(need []Name) []Name {
	var missing []Name
	for _, n := range need {
		if f := registry[n]; f.Core || s.Has(n) {
			continue
		}
		missing = append(missing, n)
	}
	return missing
}
