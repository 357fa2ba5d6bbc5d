package nodeadmit

import (
	"context"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginAnyRejectionWins = spec.Spec{
	ShortName: "NodePluginAnyRejectionWins",
	Suite:     "nodeadmit",
	Description: "When one node admission plugin rejects a pod and the others admit it, the pod is rejected with the " +
		"rejecting plugin's Reason and Message, and every plugin was asked.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedPlugins,
	Isolation: installsPlugins,
}

var _ = describe(pluginAnyRejectionWins, func(f *harness.Framework) {
	forEachType("rejects the pod when only that plugin rejects", func(ctx context.Context, rejecting nodeadmission.PluginType) {
		var plugins []fakenodeplugin.Plugin
		var guard fakenodeplugin.Plugin
		for _, t := range nodeadmission.PluginTypes {
			p := fakePlugin("admit-"+string(t), t, fakenodeplugin.Behaviour{Action: fakenodeplugin.Admit})
			if t == rejecting {
				p = fakePlugin("reject-"+string(t), t, fakenodeplugin.Behaviour{Action: fakenodeplugin.Reject,
					Reason: "VetoedBy" + string(t), Message: "one " + string(t) + " plugin said no"})
				guard = p
			}
			plugins = append(plugins, p)
		}
		node, installed, control := installWithControl(ctx, f, plugins...)
		pod, d := decideSubject(ctx, f, node)
		expectRejected(ctx, f, d, rejection{reason: guard.Behaviour.Reason, message: guard.Behaviour.Message, control: control})
		for _, p := range plugins {
			expectAsked(installed, p.Name, pod, 1)
		}
	})
})
