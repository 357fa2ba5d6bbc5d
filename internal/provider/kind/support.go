package kind

import "github.com/admission-conformance/admission-conformance/framework/features"

// Support says, for every registered feature, whether kind clusters
// declare it, when, or why not (`list --features --provider kind`,
// docs/providers.md). A test checks it covers every registered feature.
func Support() features.SupportTable {
	byVersion := "the node image's Kubernetes has it on by default (" // + since
	return features.SupportTable{
		features.MutatingWebhook:            features.Always,
		features.ValidatingWebhook:          features.Always,
		features.WebhookMatchConditions:     features.Always,
		features.ValidatingAdmissionPolicy:  features.Always,
		features.MutatingAdmissionPolicy:    {When: "discovery shows admissionregistration.k8s.io/v1 mutatingadmissionpolicies (1.36 on)"},
		features.WebhookConfigurationOrder:  features.Always,
		features.ParallelValidatingWebhooks: features.Always,
		features.AuditLog:                   {When: "the run created the cluster (each apiserver writes its log into the provider's work dir through a mount)"},
		features.APIServerMetrics:           features.Always,
		features.MultipleAPIServers:         {When: "--kind-topology ha"},
		features.Scheduler:                  features.Always,
		features.ControllerManager:          features.Always,
		features.NodeAdmission:              features.Always,
		features.NodeAdmissionPlugins: {When: "the node's kubelet hosts the reference plugin host (images make kind-image builds " +
			"for the release the harness pins) and the provider mounted the node's plugin host dir (clusters it created, kept ones too)"},
		features.ReferenceInitializers:   {When: "the harness installs the reference initializers (the default)"},
		features.HostWebhooksReachable:   features.Always,
		features.WebhookServiceReference: {When: "this host has an external IPv4 address for the Service's EndpointSlice (kube-proxy on the apiserver's node forwards the ClusterIP to it)"},
		features.StaticAdmissionManifests: {When: "the run created the cluster from a node image of Kubernetes 1.37 on " +
			"(each control-plane node's static manifest dirs are in the provider's work dir, mounted into the node; a reused cluster is taken as created without them)"},
		features.WebhookVirtualResourcesExcluded: {When: byVersion + "1.37)"},
		features.WebhookRoundTripLoadBalancing: {When: byVersion + "1.37), every apiserver routes to endpoints itself " +
			"(--enable-aggregator-routing, which the provider sets on the clusters it creates) and this host has an external IPv4 address"},
		features.NodeDeclaredFeatures: {When: byVersion + "1.37)"},
		features.ConditionalAuthorization: {Never: "alpha and off in 1.38, which the module proxy does not serve yet; " +
			"no node image carries it"},
		features.PolicyAuditAllFailures: {When: byVersion + "1.37: a fix, not a gate)"},
	}
}
