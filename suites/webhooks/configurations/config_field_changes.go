package configurations

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookFieldChanges = spec.Spec{
	ShortName: "WebhookFieldChanges",
	Suite:     "webhooks",
	Description: "A change to each behaviour-bearing field of a live webhook (rules' operations, resources, apiGroups, " +
		"apiVersions and scope, namespaceSelector, objectSelector, matchConditions, clientConfig url and caBundle, " +
		"failurePolicy, timeoutSeconds, matchPolicy, admissionReviewVersions, name), and its reversal, is enforced on every apiserver " +
		"replica within the propagation bound.",
	Features:  []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.WebhookMatchConditions},
	Profile:   spec.Core,
	Isolation: speckit.WebhookQuiet,
	Seed:      "002 Goals: admin needs to be able to ensure initializers/webhooks config will be applied within some bound",
}

// slowAnswer is when the slow hook answers: past 1 s, within 2 s.
const slowAnswer = 1500 * time.Millisecond

// fieldChange is one live change of one field of the webhook under test:
// change edits the configuration's hooks (subject, broken, slow), enforced
// says from one probe whether the change is in force on a replica. The
// case then restores the field and waits for the baseline again.
type fieldChange struct {
	field    string
	change   func(subject, broken, slow, exact *admissionregistrationv1.ValidatingWebhook)
	enforced enforce.Probe
	// restored, if set, is the probe of the baseline after the change is
	// undone (the subject's baseline otherwise); takes is how long probes
	// last by design (a webhook timing out, or answering late), allowed on
	// top of the bound since a probe's answer is when enforcement is seen:
	// at worst one probe sent just before the change (the old behaviour's
	// length) and the one that sees it (the new behaviour's).
	restored enforce.Probe
	takes    time.Duration
}

var _ = harness.Describe(webhookFieldChanges, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("%s configuration: each field changed and changed back, on every replica", phase), func(ctx ginkgo.SpecContext) {
			bound := f.Bounds.WebhookConfigPropagation.Duration
			stats := speckit.NewLatencies("webhook-field-change-propagation", bound)
			message := "field change subject " + f.Namespace
			subject, subjectClient, err := f.Serve(phase, "subject", fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: message})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			other := "field change other endpoint " + f.Namespace
			_, otherClient, err := f.Serve(phase, "other", fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: other})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			_, brokenClient, err := f.Serve(phase, "broken", fakewebhook.Behaviour{Action: fakewebhook.InternalError})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			// slow answers after slowAnswer: within its baseline 2 s
			// timeout, past a 1 s one.
			slowMessage := "field change slow " + f.Namespace
			_, slowClient, err := f.Serve(phase, "slow", fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: slowMessage, Delay: slowAnswer})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			strangerCA, err := pki.NewCA("not the webhook server's CA")
			gomega.Expect(err).NotTo(gomega.HaveOccurred())

			hook := func(name string, client admissionregistrationv1.WebhookClientConfig, label string) admissionregistrationv1.ValidatingWebhook {
				return admissionregistrationv1.ValidatingWebhook{Name: name + "." + subject.FullName, ClientConfig: client, Rules: speckit.ConfigMapRules(),
					ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: label}},
					TimeoutSeconds: ptr.To[int32](2), MatchPolicy: ptr.To(admissionregistrationv1.Equivalent)}
			}
			cfg := propagationConfig{name: fmt.Sprintf("%s-fields-%s", f.Namespace, phase), labels: f.Labels(), namespace: f.Namespace,
				gate: hook("subject", subjectClient, "gated"), broken: hook("broken", brokenClient, "broken")}
			cfg.broken.FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
			cfg.extra = []admissionregistrationv1.ValidatingWebhook{hook("slow", slowClient, "slow")}
			cfg.extra[0].FailurePolicy = ptr.To(admissionregistrationv1.Fail)
			// exact matches autoscaling/v1 HorizontalPodAutoscalers with
			// matchPolicy Exact: a request through autoscaling/v2 passes
			// it until matchPolicy becomes Equivalent.
			exact := hook("exact", subjectClient, "exact")
			exact.Rules = []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{"v1"},
					Resources: []string{"horizontalpodautoscalers"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
			}}
			exact.MatchPolicy = ptr.To(admissionregistrationv1.Exact)
			cfg.extra = append(cfg.extra, exact)

			denied := func(msg string) func(error) bool { return func(err error) bool { return speckit.DeniedWith(err, msg) } }
			allowed := func(err error) bool { return err == nil }
			baseline := probe(f, "gated", denied(message))
			edit := func(field string, change func(subject *admissionregistrationv1.ValidatingWebhook), enforced enforce.Probe) fieldChange {
				return fieldChange{field: field, change: func(s, _, _, _ *admissionregistrationv1.ValidatingWebhook) { change(s) }, enforced: enforced}
			}
			changes := []fieldChange{
				edit("rules[].operations", func(s *admissionregistrationv1.ValidatingWebhook) {
					s.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
				}, probe(f, "gated", allowed)),
				edit("rules[].resources", func(s *admissionregistrationv1.ValidatingWebhook) { s.Rules[0].Resources = []string{"secrets"} }, probe(f, "gated", allowed)),
				edit("rules[].apiGroups", func(s *admissionregistrationv1.ValidatingWebhook) { s.Rules[0].APIGroups = []string{"apps"} }, probe(f, "gated", allowed)),
				edit("rules[].apiVersions", func(s *admissionregistrationv1.ValidatingWebhook) { s.Rules[0].APIVersions = []string{"v1beta1"} }, probe(f, "gated", allowed)),
				edit("rules[].scope", func(s *admissionregistrationv1.ValidatingWebhook) {
					s.Rules[0].Scope = ptr.To(admissionregistrationv1.ClusterScope)
				}, probe(f, "gated", allowed)),
				edit("namespaceSelector", func(s *admissionregistrationv1.ValidatingWebhook) {
					s.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace + "-elsewhere"}}
				}, probe(f, "gated", allowed)),
				edit("objectSelector", func(s *admissionregistrationv1.ValidatingWebhook) {
					s.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: speckit.ProbeLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"elsewhere"}}}}
				}, probe(f, "gated", allowed)),
				edit("matchConditions", func(s *admissionregistrationv1.ValidatingWebhook) {
					s.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "never", Expression: "false"}}
				}, probe(f, "gated", allowed)),
				edit("clientConfig.url", func(s *admissionregistrationv1.ValidatingWebhook) { s.ClientConfig.URL = otherClient.URL }, probe(f, "gated", denied(other))),
				edit("clientConfig.caBundle", func(s *admissionregistrationv1.ValidatingWebhook) {
					s.ClientConfig.CABundle = strangerCA.CertPEM()
				},
					probe(f, "gated", apierrors.IsInternalError)),
				edit("name", func(s *admissionregistrationv1.ValidatingWebhook) { s.Name = "renamed." + subject.FullName },
					probe(f, "gated", denied(fmt.Sprintf("%q denied the request: %s", "renamed."+subject.FullName, message)))),
				edit("admissionReviewVersions", func(s *admissionregistrationv1.ValidatingWebhook) {
					s.AdmissionReviewVersions = []string{"v1beta1"}
				},
					reviewVersionProbe(f, subject, "v1beta1")),
				{field: "failurePolicy", change: func(_, b, _, _ *admissionregistrationv1.ValidatingWebhook) {
					b.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
				},
					enforced: probe(f, "broken", apierrors.IsInternalError), restored: probe(f, "broken", allowed)},
				{field: "timeoutSeconds", change: func(_, _, sl, _ *admissionregistrationv1.ValidatingWebhook) { sl.TimeoutSeconds = ptr.To[int32](1) },
					enforced: probe(f, "slow", apierrors.IsInternalError), restored: probe(f, "slow", denied(slowMessage)), takes: slowAnswer + time.Second},
				{field: "matchPolicy", change: func(_, _, _, ex *admissionregistrationv1.ValidatingWebhook) {
					ex.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)
				}, enforced: hpaProbe(f, "exact", denied(message)), restored: hpaProbe(f, "exact", allowed)},
			}

			gomega.Expect(cfg.create(ctx, f, phase)).To(gomega.Succeed())
			await := func(what string, p enforce.Probe, takes time.Duration) {
				perReplica, err := enforce.OnEveryReplicaSeen(ctx, time.Now(), f.Replicas, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration, p)
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s of the %s configuration", what, phase)
				stats.AddAllowing(f, map[string]string{"phase": string(phase), "change": what, "probeTakes": takes.String()}, perReplica, takes)
				speckit.ExpectEachWithin(perReplica, bound+takes, fmt.Sprintf("%s of a live %s configuration (bound plus %s a probe takes)", what, phase, takes))
			}
			await("create", baseline, 0)
			for _, c := range changes {
				saved := cfg.clone()
				c.change(&cfg.gate, &cfg.broken, &cfg.extra[0], &cfg.extra[1])
				gomega.Expect(cfg.update(ctx, f, phase)).To(gomega.Succeed(), "change %s", c.field)
				await(c.field, c.enforced, c.takes)
				cfg = saved
				gomega.Expect(cfg.update(ctx, f, phase)).To(gomega.Succeed(), "change %s back", c.field)
				restored := c.restored
				if restored == nil {
					restored = baseline
				}
				await(c.field+" back", restored, c.takes)
			}
			stats.Summarize(f)
		})
	}
})

// reviewVersionProbe sends a named dry-run probe through the subject hook
// and says whether its call came in AdmissionReview version.
func reviewVersionProbe(f *harness.Framework, hook harness.RegisteredHook, version string) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return false, err
		}
		name := fmt.Sprintf("version-probe-%d", time.Now().UnixNano())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{speckit.ProbeLabel: "gated"}}}
		_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && !apierrors.IsForbidden(err) {
			return false, err
		}
		// The call is journaled as its handler returns, just after the
		// answer the apiserver acted on.
		waitCtx, cancel := context.WithTimeout(ctx, f.Bounds.PollInterval.Duration*10)
		defer cancel()
		call, err := f.Env.Webhooks.Journal().WaitFor(waitCtx, func(c fakewebhook.Call) bool {
			return c.Path == hook.Path && c.Namespace == f.Namespace && c.Name == name
		})
		if err != nil {
			return false, fmt.Errorf("the probe %s reached no call of %s: %w", name, hook.FullName, err)
		}
		return strings.HasSuffix(call.ReviewVersion, "/"+version), nil
	}
}

// hpaProbe sends a dry-run autoscaling/v2 HorizontalPodAutoscaler labelled
// label and judges the answer with enforced.
func hpaProbe(f *harness.Framework, label string, enforced func(error) bool) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return false, err
		}
		hpa := &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Labels: map[string]string{speckit.ProbeLabel: label}},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 2,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "none"}},
		}
		_, err = client.AutoscalingV2().HorizontalPodAutoscalers(f.Namespace).Create(ctx, hpa, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && !apierrors.IsForbidden(err) {
			return false, err
		}
		return enforced(err), nil
	}
}
