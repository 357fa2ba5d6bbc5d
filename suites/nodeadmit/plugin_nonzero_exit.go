package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginNonZeroExitFailsClosed = spec.Spec{
	ShortName: "NodePluginNonZeroExitFailsClosed",
	Suite:     "nodeadmit",
	Description: "A shell node admission plugin that exits non-zero makes the node reject the pod, with Reason " +
		"AdmissionPluginFailed and a message naming the plugin.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedFailClosed,
	Isolation: installsPlugins,
}

var _ = describe(pluginNonZeroExitFailsClosed, func(f *harness.Framework) {
	// Only a shell plugin has an exit status per pod; a server that exits
	// is the crash case.
	ginkgo.It("rejects the pod when the plugin exits with status 3", func(ctx ginkgo.SpecContext) {
		expectFailsClosed(ctx, f, nodeadmission.PluginTypeShell, failure{
			behaviour: fakenodeplugin.Behaviour{Action: fakenodeplugin.Exit, ExitCode: 3},
			reason:    nodeadmission.ReasonPluginFailed})
	})
})
