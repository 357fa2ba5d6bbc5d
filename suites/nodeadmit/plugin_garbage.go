package nodeadmit

import (
	"context"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginGarbageFailsClosed = spec.Spec{
	ShortName: "NodePluginGarbageFailsClosed",
	Suite:     "nodeadmit",
	Description: "A node admission plugin that answers something other than an AdmitResult makes the node reject the pod, " +
		"with Reason AdmissionPluginInvalidResponse and a message naming the plugin.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedFailClosed,
	Isolation: installsPlugins,
}

var _ = describe(pluginGarbageFailsClosed, func(f *harness.Framework) {
	forEachType("rejects the pod when the plugin answers garbage", func(ctx context.Context, t nodeadmission.PluginType) {
		expectFailsClosed(ctx, f, t, failure{behaviour: fakenodeplugin.Behaviour{Action: fakenodeplugin.Garbage},
			reason: nodeadmission.ReasonPluginInvalidResponse, answers: true})
	})
})
