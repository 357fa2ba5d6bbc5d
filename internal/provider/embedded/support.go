package embedded

import "github.com/admission-conformance/admission-conformance/framework/features"

// Support says, for every registered feature, whether the embedded cluster
// declares it, when, or why not (`list --features --provider embedded`).
func Support() features.SupportTable {
	return features.SupportTable{
		features.MutatingWebhook:            features.Always,
		features.ValidatingWebhook:          features.Always,
		features.WebhookMatchConditions:     features.Always,
		features.ValidatingAdmissionPolicy:  features.Always,
		features.MutatingAdmissionPolicy:    {When: "discovery shows its API (unless --apiserver-arg turns it off)"},
		features.WebhookConfigurationOrder:  features.Always,
		features.ParallelValidatingWebhooks: features.Always,
		features.AuditLog:                   features.Always,
		features.APIServerMetrics:           features.Always,
		features.MultipleAPIServers:         {When: "--apiservers 2 or more"},
		features.Scheduler:                  {When: "the scheduler runs (the default)"},
		features.ControllerManager:          {When: "the controller manager runs (the default)"},
		features.NodeAdmission:              {When: "--nodes is 1 or more and the selection places pods (hollow kubelets)"},
		features.NodeAdmissionPlugins:       {When: "the hollow kubelets host the reference plugin host (not with --node-fault no-plugin-host)"},
		features.ReferenceInitializers:      {When: "the harness installs the reference initializers (the default)"},
		features.HostWebhooksReachable:      features.Always,
		features.WebhookServiceReference:    {When: "this host has an external IPv4 address (an endpoint address the apiserver accepts)"},
		features.StaticAdmissionManifests: {When: "the apiservers have gate ManifestBasedAdmissionControlConfig on " +
			"(1.37's default) and no --admission-control-config-file or --emulated-version of the user's"},
		features.WebhookRoundTripLoadBalancing: {When: "this host has an external IPv4 address and the apiservers have gate " +
			"WebhookRoundTripLoadBalancing on (1.37's default; they always route to endpoints themselves)"},
		features.WebhookVirtualResourcesExcluded: {When: "the embedded release has it on by default (1.37)"},
		features.NodeDeclaredFeatures:            {When: "the embedded release has it on by default (1.37)"},
		features.ConditionalAuthorization: {Never: "alpha and off in 1.38, which the module proxy does not serve yet; " +
			"the embedded release (1.37) has no such gate"},
		features.PolicyAuditAllFailures: {When: "the embedded release has the fix (1.37)"},
	}
}
