package matching

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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

var objectSelectorOnSubresources = spec.Spec{
	ShortName: "ObjectSelectorOnSubresources",
	Suite:     "webhooks",
	Description: "A webhook's objectSelector on a subresource is evaluated against the objects the webhook would be sent: " +
		"for deployments/status the Deployment, selected by its labels; for deployments/scale the autoscaling/v1 Scale, " +
		"which carries no labels, so only an empty objectSelector selects it whatever the Deployment's labels.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "001 Attributes.GetSubresource: a subresource may have a different kind; admissionregistration.k8s.io/v1 " +
		"objectSelector is evaluated against both the oldObject and newObject that would be sent to the webhook",
}

var _ = harness.Describe(objectSelectorOnSubresources, func(f *harness.Framework) {
	ginkgo.It("status is matched by the Deployment's labels, scale by the Scale's, which are none", func(ctx ginkgo.SpecContext) {
		value := "subresource-" + f.Namespace
		selected := &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}}
		hook := func(name, resource string, selector *metav1.LabelSelector) harness.Hook {
			rules := speckit.AllOperations("apps", "v1", resource)
			rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
			return harness.Hook{Name: name, Rules: rules, ObjectSelector: selector, Behaviour: speckit.Allow()}
		}
		reg, err := f.RegisterValidating(ctx, "subresource-selectors",
			hook("status-selected", "deployments/status", selected),
			hook("scale-selected", "deployments/scale", selected),
			hook("scale-any", "deployments/scale", nil))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		deployments := f.Client.AppsV1().Deployments(f.Namespace)
		labelled, err := deployments.Create(ctx, speckit.GatedDeployment(f, map[string]string{speckit.ProbeLabel: value}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		unlabelled, err := deployments.Create(ctx, speckit.GatedDeployment(f, nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for _, d := range []*appsv1.Deployment{labelled, unlabelled} {
			// The deployment controller writes the status too: an update
			// may meet a conflict and is retried.
			gomega.Eventually(ctx, func(ctx context.Context) error {
				current, err := deployments.Get(ctx, d.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				current.Status.ObservedGeneration = 1000
				_, err = deployments.UpdateStatus(ctx, current, metav1.UpdateOptions{FieldManager: "ac-status-" + rand.String(5)})
				return err
			}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
			scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: f.Namespace}, Spec: autoscalingv1.ScaleSpec{Replicas: 1}}
			_, err = deployments.UpdateScale(ctx, d.Name, scale, metav1.UpdateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}

		called := func(hook string, d *appsv1.Deployment, subresource string) bool {
			return len(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
				return c.Path == reg.Hooks[hook].Path && c.Operation == "UPDATE" && c.Name == d.Name && c.SubResource == subresource
			})) > 0
		}
		gomega.Expect(called("status-selected", labelled, "status")).To(gomega.BeTrue(), "a status update of a Deployment the objectSelector selects")
		gomega.Expect(called("status-selected", unlabelled, "status")).To(gomega.BeFalse(), "a status update of a Deployment the objectSelector does not select")
		gomega.Expect(called("scale-selected", labelled, "scale")).To(gomega.BeFalse(),
			"a scale update is matched against the Scale, which carries no labels, not against the Deployment's labels")
		gomega.Expect(called("scale-selected", unlabelled, "scale")).To(gomega.BeFalse(), "a scale update of an unlabelled Deployment")
		gomega.Expect(called("scale-any", labelled, "scale")).To(gomega.BeTrue(), "an empty objectSelector selects every Scale")
		gomega.Expect(called("scale-any", unlabelled, "scale")).To(gomega.BeTrue(), "an empty objectSelector selects every Scale")
	})
})
