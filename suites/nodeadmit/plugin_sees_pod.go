package nodeadmit

import (
	"context"

	"github.com/onsi/gomega"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

var pluginSeesPodUnchanged = spec.Spec{
	ShortName: "NodePluginSeesThePodUnchanged",
	Suite:     "nodeadmit",
	Description: "A node admission plugin is sent the pod as stored: a v1 Pod with the same name, namespace, UID, labels " +
		"and spec, and the pod it admits runs with that spec unchanged.",
	Features:  pluginFeatures,
	Profile:   spec.Reference,
	Seed:      seedParallel,
	Isolation: installsPlugins,
}

var _ = describe(pluginSeesPodUnchanged, func(f *harness.Framework) {
	forEachType("sends the plugin the stored pod and leaves its spec alone", func(ctx context.Context, t nodeadmission.PluginType) {
		observer := fakePlugin("observer-"+string(t), t, fakenodeplugin.Behaviour{Action: fakenodeplugin.Admit})
		node, installed, _ := installWithControl(ctx, f, observer)
		pod, d := decideSubject(ctx, f, node)
		gomega.Expect(d.Admitted).To(gomega.BeTrue(), "rejected (%s: %s)", pod.Status.Reason, pod.Status.Message)
		stored, err := nodedecision.Current(ctx, f, pod)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		seen := expectAsked(installed, observer.Name, pod, 1)[0].Seen
		gomega.Expect(seen.APIVersion).To(gomega.Equal("v1"))
		gomega.Expect(seen.Kind).To(gomega.Equal("Pod"))
		gomega.Expect(seen.Name).To(gomega.Equal(stored.Name))
		gomega.Expect(seen.Namespace).To(gomega.Equal(stored.Namespace))
		gomega.Expect(seen.UID).To(gomega.Equal(stored.UID))
		gomega.Expect(seen.Labels).To(gomega.Equal(stored.Labels))
		gomega.Expect(apiequality.Semantic.DeepEqual(seen.Spec, stored.Spec)).To(gomega.BeTrue(),
			"the plugin saw a spec other than the stored one:\nseen:   %+v\nstored: %+v", seen.Spec, stored.Spec)
	})
})
