package nodeadmit

import (
	"context"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginRejectionKeepsReason = spec.Spec{
	ShortName: "NodePluginRejectionKeepsReasonAndMessage",
	Suite:     "nodeadmit",
	Description: "A pod a node admission plugin rejects fails with the plugin's Reason, the plugin's Message after " +
		"\"Pod was rejected: \", and a Warning event with that Reason, and is not deleted.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedPlugins,
	Isolation: installsPlugins,
}

var _ = describe(pluginRejectionKeepsReason, func(f *harness.Framework) {
	forEachType("fails the pod with the plugin's Reason and Message", func(ctx context.Context, t nodeadmission.PluginType) {
		guard := fakePlugin("guard", t, fakenodeplugin.Behaviour{Action: fakenodeplugin.Reject,
			Reason: "NotOnThisNode", Message: "the guard (" + string(t) + " plugin) keeps such pods off this node"})
		node, plugins, control := installWithControl(ctx, f, guard)
		pod, d := decideSubject(ctx, f, node)
		expectRejected(ctx, f, d, rejection{reason: guard.Behaviour.Reason, message: guard.Behaviour.Message, control: control})
		expectAsked(plugins, guard.Name, pod, 1)
	})
})
