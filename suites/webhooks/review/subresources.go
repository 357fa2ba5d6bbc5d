package review

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var reviewRequestSubresources = spec.Spec{
	ShortName: "ReviewRequestSubresources",
	Suite:     "webhooks",
	Description: "Requests to a subresource reach webhooks with subResource and requestSubResource set, the parent's " +
		"resource, and the subresource's own kind: a Deployment for deployments/status, an autoscaling/v1 Scale for " +
		"deployments/scale, with object and oldObject of that kind.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "001 Attributes.GetSubresource: /pods/foo/status has the resource \"pods\", the sub resource \"status\", and the " +
		"kind \"Pod\"; a subresource may have a different kind",
}

var deploymentsResource = metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

var _ = harness.Describe(reviewRequestSubresources, func(f *harness.Framework) {
	ginkgo.It("status: subResource status, kind Deployment, object and oldObject Deployments", func(ctx ginkgo.SpecContext) {
		hooks := observers(ctx, f, speckit.AllOperations("apps", "v1", "deployments/status"))
		d, err := f.Client.AppsV1().Deployments(f.Namespace).Create(ctx, speckit.GatedDeployment(f, nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// The deployment controller writes the status too, so an update can
		// meet a conflict; each attempt has its own field manager, and the
		// calls checked are those of the attempt that succeeded.
		var manager string
		gomega.Eventually(ctx, func() error {
			manager = "ac-status-" + rand.String(5)
			current, err := f.Client.AppsV1().Deployments(f.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			current.Status.ObservedGeneration = 1000
			_, err = f.Client.AppsV1().Deployments(f.Namespace).UpdateStatus(ctx, current, metav1.UpdateOptions{FieldManager: manager})
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		for phase, c := range onePerPhase(f, hooks, "the status update", withOptions(manager)) {
			expectTarget(c, "UPDATE", metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, deploymentsResource, "status")
			gomega.Expect(c.Name).To(gomega.Equal(d.Name), "%s status: name", phase)
			var obj, old appsv1.Deployment
			gomega.Expect(c.DecodeObject(&obj)).To(gomega.Succeed())
			gomega.Expect(c.DecodeOldObject(&old)).To(gomega.Succeed(), "%s status: oldObject must be the stored Deployment", phase)
			gomega.Expect(obj.Status.ObservedGeneration).To(gomega.Equal(int64(1000)), "%s status: object carries the new status", phase)
			gomega.Expect(old.Status.ObservedGeneration).NotTo(gomega.Equal(int64(1000)), "%s status: oldObject carries the stored status", phase)
		}
	})

	ginkgo.It("scale: subResource scale, kind autoscaling/v1 Scale, object and oldObject Scales", func(ctx ginkgo.SpecContext) {
		hooks := observers(ctx, f, speckit.AllOperations("apps", "v1", "deployments/scale"))
		d, err := f.Client.AppsV1().Deployments(f.Namespace).Create(ctx, speckit.GatedDeployment(f, nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: f.Namespace}, Spec: autoscalingv1.ScaleSpec{Replicas: 1}}
		_, err = f.Client.AppsV1().Deployments(f.Namespace).UpdateScale(ctx, d.Name, scale, metav1.UpdateOptions{FieldManager: "ac-scale"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// The Scale carries no resourceVersion, so a conflict with the
		// controller manager's status writes retries it, admission included.
		for _, c := range eachPerPhase(f, hooks, "the scale update", withOptions("ac-scale")) {
			phase := c.Phase
			expectTarget(c, "UPDATE", metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, deploymentsResource, "scale")
			gomega.Expect(c.Name).To(gomega.Equal(d.Name), "%s scale: name", phase)
			var obj, old autoscalingv1.Scale
			gomega.Expect(c.DecodeObject(&obj)).To(gomega.Succeed())
			gomega.Expect(c.DecodeOldObject(&old)).To(gomega.Succeed(), "%s scale: oldObject must be the stored Scale", phase)
			gomega.Expect(obj.Kind).To(gomega.Equal("Scale"), "%s scale: object kind", phase)
			gomega.Expect(obj.Spec.Replicas).To(gomega.Equal(int32(1)), "%s scale: object is the requested Scale", phase)
			gomega.Expect(old.Spec.Replicas).To(gomega.Equal(int32(0)), "%s scale: oldObject is the stored Scale", phase)
		}
	})

	ginkgo.It("a subresource rule does not match the parent resource", func(ctx ginkgo.SpecContext) {
		hooks := observers(ctx, f, speckit.AllOperations("apps", "v1", "deployments/status"))
		_, err := f.Client.AppsV1().Deployments(f.Namespace).Create(ctx, speckit.GatedDeployment(f, nil), metav1.CreateOptions{FieldManager: "ac-parent"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// The deployment controller's status writes do reach the hooks; the
		// create of the parent must not.
		for phase, hook := range hooks {
			gomega.Expect(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == hook.Path && c.Operation == "CREATE" })).
				To(gomega.BeEmpty(), "%s hook on deployments/status must not be called for a create of deployments", phase)
		}
	})
})
