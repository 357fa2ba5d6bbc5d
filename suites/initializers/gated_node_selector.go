package initializers

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var gatedPodNodeSelectorTightenOnly = spec.Spec{
	ShortName: "GatedPodNodeSelectorTightenOnly",
	Suite:     "initializers",
	Description: "While a pod is gated its nodeSelector can only be tightened: new keys are accepted, changing or removing " +
		"a key is rejected; a pod without gates cannot change its nodeSelector at all.",
	Profile: spec.Core,
	Seed: "000 Requirements: an object being initialized follows creation validation plus ValidateObjectMetaUpdate, " +
		"not every update restriction (today: gated pods may tighten scheduling directives)",
	Isolation: usesInitializers,
}

var _ = harness.Describe(gatedPodNodeSelectorTightenOnly, func(f *harness.Framework) {
	ginkgo.It("accepts new nodeSelector keys on a gated pod, rejects changes and removals, and any change without gates", func(ctx ginkgo.SpecContext) {
		pods := f.Client.CoreV1().Pods(f.Namespace)
		never := map[string]string{"admission-conformance.io/no-such-node": "true"}
		gated := newPod(f.Namespace, "gated", gate(f, "hold"))
		gated.Spec.NodeSelector = never
		gated, err := pods.Create(ctx, gated, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		free := newPod(f.Namespace, "free")
		free.Spec.NodeSelector = never
		free, err = pods.Create(ctx, free, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		merge := func(name, patch string) error {
			_, err := pods.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			return err
		}
		gomega.Expect(merge(gated.Name, `{"spec":{"nodeSelector":{"zone":"a"}}}`)).To(gomega.Succeed(), "adding a key while gated")
		const onlyAdditions = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
		for what, patch := range map[string]string{
			"changing a key":  `{"spec":{"nodeSelector":{"zone":"b"}}}`,
			"removing a key":  `{"spec":{"nodeSelector":{"zone":null}}}`,
			"removing it all": `{"spec":{"nodeSelector":null}}`,
		} {
			err := merge(gated.Name, patch)
			gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "%s while gated: want 422 Invalid, got %v", what, err)
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(onlyAdditions), what)
		}
		got, err := pods.Get(ctx, gated.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Spec.NodeSelector).To(gomega.Equal(map[string]string{"admission-conformance.io/no-such-node": "true", "zone": "a"}))

		err = merge(free.Name, `{"spec":{"nodeSelector":{"zone":"a"}}}`)
		gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "adding a key without gates: want 422 Invalid, got %v", err)
	})
})
