package kubeconfig

import "github.com/admission-conformance/admission-conformance/framework/features"

// Support says, for every registered feature, whether an existing cluster
// reached by kubeconfig declares it, when, or why not (`list --features
// --provider kubeconfig`). The harness did not build the cluster, so what it
// cannot see it leaves to the user to claim (--supported-features).
func Support() features.SupportTable {
	claim := func(why string) features.Support { return features.Support{Never: why, Claimed: true} }
	return features.SupportTable{
		features.MutatingWebhook:                 features.Always,
		features.ValidatingWebhook:               features.Always,
		features.WebhookMatchConditions:          features.Always,
		features.ValidatingAdmissionPolicy:       features.Always,
		features.MutatingAdmissionPolicy:         {When: "discovery shows admissionregistration.k8s.io/v1 mutatingadmissionpolicies"},
		features.WebhookConfigurationOrder:       claim("upstream's behaviour, not an API guarantee: the harness cannot tell an implementation's"),
		features.ParallelValidatingWebhooks:      claim("upstream's behaviour, not an API guarantee: the harness cannot tell an implementation's"),
		features.AuditLog:                        claim("the apiservers' audit logs are on their hosts, which the harness cannot read"),
		features.APIServerMetrics:                claim("behind a load balancer the harness cannot tell which apiserver's /metrics it read"),
		features.MultipleAPIServers:              claim("a kubeconfig reaches one address; each replica must be reachable on its own"),
		features.Scheduler:                       claim("the provider does not check for a scheduler"),
		features.ControllerManager:               features.Always,
		features.NodeAdmission:                   {When: "--node-admission-nodes names nodes with real kubelets"},
		features.NodeAdmissionPlugins:            claim("the harness cannot put plugins on the cluster's nodes: it has no access to their file systems"),
		features.ReferenceInitializers:           {When: "the harness installs the reference initializers (the default)"},
		features.HostWebhooksReachable:           {When: "--plugin-image runs the relay in the cluster, or --webhook-host names an address the apiservers reach"},
		features.WebhookServiceReference:         claim("the EndpointSlice would have to name an address of this host the cluster's proxies reach"),
		features.StaticAdmissionManifests:        claim("the control-plane nodes' static manifest dirs are on their hosts, which the harness cannot write"),
		features.WebhookRoundTripLoadBalancing:   claim("the harness cannot see whether the apiservers route to endpoints themselves (--enable-aggregator-routing)"),
		features.WebhookVirtualResourcesExcluded: {When: "the cluster's Kubernetes version has it on by default (1.37)"},
		features.NodeDeclaredFeatures:            {When: "the cluster's Kubernetes version has it on by default (1.37)"},
		features.ConditionalAuthorization:        claim("the apiservers' authorization configuration is the cluster's own"),
		features.PolicyAuditAllFailures:          {When: "the cluster's Kubernetes version has the fix (1.37)"},
	}
}
