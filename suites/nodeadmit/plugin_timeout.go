package nodeadmit

import (
	"context"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginTimeoutFailsClosed = spec.Spec{
	ShortName: "NodePluginTimeoutFailsClosed",
	Suite:     "nodeadmit",
	Description: "A node admission plugin that does not answer within the host's timeout makes the node reject the pod " +
		"once the timeout passes, with Reason AdmissionPluginTimeout and a message naming the plugin.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedFailClosed,
	Isolation: installsPlugins,
}

// hang is longer than any plugin timeout the harness sets.
const hang = 10 * time.Minute

var _ = describe(pluginTimeoutFailsClosed, func(f *harness.Framework) {
	forEachType("rejects the pod once the host's timeout passes", func(ctx context.Context, t nodeadmission.PluginType) {
		expectFailsClosed(ctx, f, t, failure{
			behaviour: fakenodeplugin.Behaviour{Action: fakenodeplugin.Admit, Delay: bounds.D(hang)},
			reason:    nodeadmission.ReasonPluginTimeout, timesOut: true,
		})
	})
})
