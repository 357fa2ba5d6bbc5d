package acme

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var enforcedWithinBound = spec.Spec{
	ShortName: "AcmeDenialEnforcedWithinBound",
	Suite:     Suite,
	Description: "Once ACME's validating configuration is created, every apiserver replica refuses a forbidden ConfigMap " +
		"within webhookConfigPropagation.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "ACME admission contract 3: installing ACME's webhooks protects the cluster within the propagation bound",
	// The spec measures how fast a configuration is enforced: no other case
	// writes webhook configurations meanwhile (framework/quiet).
	Isolation: spec.Isolation{Quiet: []quiet.Kind{quiet.WebhookConfigurations},
		Reason: "measures how fast a new webhook configuration is enforced, which other cases' configuration writes would distort"},
}

var _ = harness.Describe(enforcedWithinBound, func(f *harness.Framework) {
	ginkgo.It("refuses forbidden ConfigMaps on every replica within the bound", func(ctx ginkgo.SpecContext) {
		// The case writes the configuration itself, so Serve only puts the
		// endpoint on the fake server and says how to reach it.
		hook, client, err := f.Serve(fakewebhook.Validating, "forbidden",
			fakewebhook.Behaviour{Action: fakewebhook.Deny, Code: 403, Message: DenyMessage})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-acme", Labels: f.Labels()},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: hook.FullName, ClientConfig: client,
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
						Resources: []string{"configmaps"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
				}},
				// Scoped to the case: its namespace, labelled objects only.
				NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}},
				ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{ForbiddenLabel: "true"}},
				FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"},
			}},
		}
		configs := f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
		_, err = configs.Create(ctx, cfg, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		created := time.Now()
		ginkgo.DeferCleanup(func(ctx context.Context) error {
			if err := configs.Delete(ctx, cfg.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			return nil
		})

		// Enforced is proven by refusals, never by sleeping: dry-run creates
		// of a forbidden ConfigMap through each replica until one is refused.
		bound := f.Bounds.WebhookConfigPropagation.Duration
		latencies, err := enforce.OnEveryReplica(ctx, created, f.Replicas, bound, f.Bounds.PollInterval.Duration, forbiddenProbe(f.Namespace))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for i, l := range latencies {
			f.Record(results.Measurement{Name: "acme-denial-enforced", Unit: "s", Value: l.Seconds(),
				Bound: ptr.To(bound.Seconds()), Labels: map[string]string{"replica": strconv.Itoa(i)}})
			gomega.Expect(l).To(gomega.BeNumerically("<=", bound), "replica %d enforced ACME's denial after %s", i, l)
		}
	})
})

// forbiddenProbe reports whether ACME's webhook refuses a forbidden
// ConfigMap (a dry run: nothing is stored) through the replica it is given.
func forbiddenProbe(namespace string) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return false, err
		}
		cm := configMap("", map[string]string{ForbiddenLabel: "true"})
		cm.GenerateName = "probe-"
		_, err = client.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil:
			return false, nil // not enforced yet
		case apierrors.IsForbidden(err) && strings.Contains(err.Error(), DenyMessage):
			return true, nil
		default:
			return false, err
		}
	}
}
