package nodeadmit

import (
	"context"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginCrashFailsClosed = spec.Spec{
	ShortName: "NodePluginCrashFailsClosed",
	Suite:     "nodeadmit",
	Description: "A node admission plugin that crashes while deciding on a pod makes the node reject the pod, with " +
		"Reason AdmissionPluginFailed and a message naming the plugin.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedFailClosed,
	Isolation: installsPlugins,
}

var _ = describe(pluginCrashFailsClosed, func(f *harness.Framework) {
	forEachType("rejects the pod when the plugin crashes", func(ctx context.Context, t nodeadmission.PluginType) {
		expectFailsClosed(ctx, f, t, failure{behaviour: fakenodeplugin.Behaviour{Action: fakenodeplugin.Crash},
			reason: nodeadmission.ReasonPluginFailed})
	})
})
