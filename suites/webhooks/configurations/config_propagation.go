package configurations

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookConfigPropagation = spec.Spec{
	ShortName: "WebhookConfigurationPropagation",
	Suite:     "webhooks",
	Description: "Creating a webhook configuration, changing its rules, changing its failure policy and deleting it " +
		"are each enforced on every apiserver replica within the propagation bound.",
	Features:  []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:   spec.Core,
	Isolation: speckit.WebhookQuiet,
	Seed: "002 Goals: admin needs to be able to ensure initializers/webhooks config will be applied within some " +
		"bound; Synchronization: a change becomes effective in 1s",
}

var _ = harness.Describe(webhookConfigPropagation, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("%s configuration: create, rules change, failure policy change and delete, on every replica", phase), func(ctx ginkgo.SpecContext) {
			bound := f.Bounds.WebhookConfigPropagation.Duration
			stats := speckit.NewLatencies("webhook-config-propagation", bound)
			deny := fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "propagation gate " + f.Namespace}
			gate, gateClient, err := f.Serve(phase, "gate", deny)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			unreachable, err := speckit.RefusingAddress()
			gomega.Expect(err).NotTo(gomega.HaveOccurred())

			for i := 0; i < speckit.PropagationSamples; i++ {
				gated, broken := fmt.Sprintf("gated-%d", i), fmt.Sprintf("broken-%d", i)
				cfg := propagationConfig{
					name: fmt.Sprintf("%s-propagation-%s-%d", f.Namespace, phase, i), labels: f.Labels(), namespace: f.Namespace,
					gate: admissionregistrationv1.ValidatingWebhook{
						Name: gate.FullName, ClientConfig: gateClient, Rules: speckit.ConfigMapRules(),
						ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: gated}},
					},
					broken: admissionregistrationv1.ValidatingWebhook{
						Name: "broken." + gate.FullName, ClientConfig: admissionregistrationv1.WebhookClientConfig{
							URL: ptr.To("https://" + unreachable + "/never"), CABundle: gateClient.CABundle},
						Rules:          speckit.ConfigMapRules(),
						ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: broken}},
						FailurePolicy:  ptr.To(admissionregistrationv1.Ignore),
					},
				}
				steps := []struct {
					change string
					apply  func(context.Context) error
					// enforced tells from one dry-run probe whether the change is in force.
					enforced enforce.Probe
				}{
					{"create", func(ctx context.Context) error { return cfg.create(ctx, f, phase) },
						probe(f, gated, func(err error) bool { return speckit.DeniedWith(err, deny.Message) })},
					{"rules", func(ctx context.Context) error {
						cfg.gate.Rules[0].Resources = []string{"secrets"}
						return cfg.update(ctx, f, phase)
					}, probe(f, gated, func(err error) bool { return err == nil })},
					{"failurePolicy", func(ctx context.Context) error {
						cfg.broken.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
						return cfg.update(ctx, f, phase)
					}, probe(f, broken, func(err error) bool { return apierrors.IsInternalError(err) })},
					{"delete", func(ctx context.Context) error { return cfg.delete(ctx, f, phase) },
						probe(f, broken, func(err error) bool { return err == nil })},
				}
				for _, step := range steps {
					gomega.Expect(step.apply(ctx)).To(gomega.Succeed(), "%s the configuration", step.change)
					applied := time.Now()
					perReplica, err := enforce.OnEveryReplicaSeen(ctx, applied, f.Replicas, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration, step.enforced)
					gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s of the %s configuration", step.change, phase)
					stats.Add(f, map[string]string{"phase": string(phase), "change": step.change}, perReplica)
					speckit.ExpectEachWithin(perReplica, bound, fmt.Sprintf("%s of a %s configuration", step.change, phase))
				}
			}
			stats.Summarize(f)
		})
	}
})
