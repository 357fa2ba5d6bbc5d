package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var webhookConfigPropagation = spec.Spec{
	ShortName: "WebhookConfigurationPropagation",
	Suite:     "webhooks",
	Description: "Creating a webhook configuration, changing its rules, changing its failure policy and deleting it " +
		"are each enforced on every apiserver replica within the propagation bound.",
	Features:  []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:   spec.Core,
	Isolation: webhookQuiet,
	Seed: "002 Goals: admin needs to be able to ensure initializers/webhooks config will be applied within some " +
		"bound; Synchronization: a change becomes effective in 1s",
}

// propagationSamples is how many times each change is measured per replica.
const propagationSamples = 5

var _ = harness.Describe(webhookConfigPropagation, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("%s configuration: create, rules change, failure policy change and delete, on every replica", phase), func(ctx ginkgo.SpecContext) {
			bound := f.Bounds.WebhookConfigPropagation.Duration
			stats := newLatencies("webhook-config-propagation", bound)
			deny := fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "propagation gate " + f.Namespace}
			gate, gateClient, err := f.Serve(phase, "gate", deny)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			unreachable, err := refusingAddress()
			gomega.Expect(err).NotTo(gomega.HaveOccurred())

			for i := 0; i < propagationSamples; i++ {
				gated, broken := fmt.Sprintf("gated-%d", i), fmt.Sprintf("broken-%d", i)
				cfg := propagationConfig{
					name: fmt.Sprintf("%s-propagation-%s-%d", f.Namespace, phase, i), labels: f.Labels(), namespace: f.Namespace,
					gate: admissionregistrationv1.ValidatingWebhook{
						Name: gate.FullName, ClientConfig: gateClient, Rules: configMapRules(),
						ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{probeLabel: gated}},
					},
					broken: admissionregistrationv1.ValidatingWebhook{
						Name: "broken." + gate.FullName, ClientConfig: admissionregistrationv1.WebhookClientConfig{
							URL: ptr.To("https://" + unreachable + "/never"), CABundle: gateClient.CABundle},
						Rules:          configMapRules(),
						ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{probeLabel: broken}},
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
						probe(f, gated, func(err error) bool { return deniedWith(err, deny.Message) })},
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
					stats.add(f, map[string]string{"phase": string(phase), "change": step.change}, perReplica)
					expectEachWithin(perReplica, bound, fmt.Sprintf("%s of a %s configuration", step.change, phase))
				}
			}
			stats.summarize(f)
		})
	}
})

// probe returns a dry-run probe whose outcome enforced judges.
func probe(f *harness.Framework, label string, enforced func(error) bool) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		_, err := dryRunCreate(ctx, rc, f.Namespace, label)
		if err != nil && !apierrors.IsForbidden(err) && !apierrors.IsInternalError(err) {
			return false, err // neither allowed nor an admission answer
		}
		return enforced(err), nil
	}
}

func configMapRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
			Resources: []string{"configmaps"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

// propagationConfig is a webhook configuration of either phase with a gate
// hook (denies its probe), a broken hook (unreachable, policy under test)
// and any extra hooks.
type propagationConfig struct {
	name, namespace string
	labels          map[string]string
	gate, broken    admissionregistrationv1.ValidatingWebhook
	extra           []admissionregistrationv1.ValidatingWebhook
}

// clone returns a copy sharing nothing with c.
func (c *propagationConfig) clone() propagationConfig {
	out := *c
	out.gate, out.broken = *c.gate.DeepCopy(), *c.broken.DeepCopy()
	out.extra = nil
	for _, h := range c.extra {
		out.extra = append(out.extra, *h.DeepCopy())
	}
	return out
}

// hooks returns the configuration's hooks, scoped to the namespace and
// with the v1 defaults a case did not set.
func (c *propagationConfig) hooks() []admissionregistrationv1.ValidatingWebhook {
	out := append([]admissionregistrationv1.ValidatingWebhook{c.gate, c.broken}, c.extra...)
	for i := range out {
		if out[i].NamespaceSelector == nil {
			out[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: c.namespace}}
		}
		out[i].SideEffects = ptr.To(admissionregistrationv1.SideEffectClassNone)
		if len(out[i].AdmissionReviewVersions) == 0 {
			out[i].AdmissionReviewVersions = []string{"v1"}
		}
		if out[i].FailurePolicy == nil {
			out[i].FailurePolicy = ptr.To(admissionregistrationv1.Fail)
		}
	}
	return out
}

func (c *propagationConfig) create(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase) error {
	ar := f.Client.AdmissionregistrationV1()
	meta := metav1.ObjectMeta{Name: c.name, Labels: c.labels}
	if phase == fakewebhook.Mutating {
		_, err := ar.MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: mutatingHooks(c.hooks())}, metav1.CreateOptions{})
		if err == nil {
			ginkgo.DeferCleanup(ignoreNotFound, ar.MutatingWebhookConfigurations().Delete, c.name)
		}
		return err
	}
	_, err := ar.ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: meta, Webhooks: c.hooks()}, metav1.CreateOptions{})
	if err == nil {
		ginkgo.DeferCleanup(ignoreNotFound, ar.ValidatingWebhookConfigurations().Delete, c.name)
	}
	return err
}

func (c *propagationConfig) update(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase) error {
	ar := f.Client.AdmissionregistrationV1()
	if phase == fakewebhook.Mutating {
		cur, err := ar.MutatingWebhookConfigurations().Get(ctx, c.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Webhooks = mutatingHooks(c.hooks())
		_, err = ar.MutatingWebhookConfigurations().Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
	cur, err := ar.ValidatingWebhookConfigurations().Get(ctx, c.name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	cur.Webhooks = c.hooks()
	_, err = ar.ValidatingWebhookConfigurations().Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

func (c *propagationConfig) delete(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase) error {
	ar := f.Client.AdmissionregistrationV1()
	if phase == fakewebhook.Mutating {
		return ar.MutatingWebhookConfigurations().Delete(ctx, c.name, metav1.DeleteOptions{})
	}
	return ar.ValidatingWebhookConfigurations().Delete(ctx, c.name, metav1.DeleteOptions{})
}

// mutatingHooks turns validating webhook definitions into mutating ones with
// the same fields (the two types share every field a spec sets here).
func mutatingHooks(in []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.MutatingWebhook {
	out := make([]admissionregistrationv1.MutatingWebhook, len(in))
	for i, h := range in {
		out[i] = admissionregistrationv1.MutatingWebhook{
			Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy,
			MatchPolicy: h.MatchPolicy, NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector,
			SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds, AdmissionReviewVersions: h.AdmissionReviewVersions,
			MatchConditions: h.MatchConditions,
		}
	}
	return out
}

func ignoreNotFound(ctx context.Context, del func(context.Context, string, metav1.DeleteOptions) error, name string) error {
	if err := del(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
