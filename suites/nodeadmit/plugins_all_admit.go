package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginsAllAdmit = spec.Spec{
	ShortName:   "NodePluginsAllAdmittingAdmits",
	Suite:       "nodeadmit",
	Description: "A pod every node admission plugin (one of each type) admits runs, after each plugin was asked once.",
	Features:    pluginFeatures,
	Profile:     spec.Reference,
	Seed:        seedPlugins,
	Isolation:   installsPlugins,
}

var _ = describe(pluginsAllAdmit, func(f *harness.Framework) {
	ginkgo.It("runs the pod once shell, grpc and socket plugins all admit it", func(ctx ginkgo.SpecContext) {
		var plugins []fakenodeplugin.Plugin
		for _, t := range nodeadmission.PluginTypes {
			plugins = append(plugins, fakePlugin("admit-"+string(t), t, fakenodeplugin.Behaviour{Action: fakenodeplugin.Admit}))
		}
		node, installed, _ := installWithControl(ctx, f, plugins...)
		pod, d := decideSubject(ctx, f, node)
		gomega.Expect(d.Admitted).To(gomega.BeTrue(), "rejected (%s: %s)", pod.Status.Reason, pod.Status.Message)
		for _, p := range plugins {
			expectAsked(installed, p.Name, pod, 1)
		}
	})
})
