package failure

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/admission-conformance/admission-conformance/framework/audit"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/metrics"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var failOpenObservable = spec.Spec{
	ShortName: "FailOpenObservable",
	Suite:     "webhooks",
	Description: "A request that a webhook failed open on carries the audit annotation failed-open.{mutation,validating}." +
		"webhook.admission.k8s.io/round_R_index_N naming the webhook, and apiserver_admission_webhook_fail_open_count " +
		"counts it.",
	Features:  []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.AuditLog, features.APIServerMetrics},
	Profile:   spec.Extended,
	Seed:      "002 We propose to allow initializers (and webhooks) to fail open; failing open must stay visible to admins",
	Isolation: speckit.CountsMutatingWebhooks,
}

const failOpenMetric = "apiserver_admission_webhook_fail_open_count"

var _ = harness.Describe(failOpenObservable, func(f *harness.Framework) {
	cases := []struct {
		phase      fakewebhook.Phase
		annotation string // round 0; mutating: the hook's index among all (mutatingIndex), validating: among those that match
		metricType string
	}{
		{fakewebhook.Mutating, "failed-open.mutation.webhook.admission.k8s.io/round_0_index_%d", "admit"},
		{fakewebhook.Validating, "failed-open.validating.webhook.admission.k8s.io/round_0_index_0", "validating"},
	}
	for _, tc := range cases {
		ginkgo.It(fmt.Sprintf("%s: audit annotation and metric", tc.phase), func(ctx ginkgo.SpecContext) {
			// A hook that matches nothing comes first: the mutating
			// index counts it, the validating one does not, so a
			// dispatcher numbering hooks the other way is caught.
			hooks := []harness.Hook{{
				Name:           "skipped",
				Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Allow},
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"admission-conformance.io/never": "set"}},
			}, {
				Name:          "broken",
				Behaviour:     fakewebhook.Behaviour{Action: fakewebhook.InternalError},
				FailurePolicy: admissionregistrationv1.Ignore,
			}}
			register := f.RegisterValidating
			if tc.phase == fakewebhook.Mutating {
				register = f.RegisterMutating
			}
			reg, err := register(ctx, string(tc.phase)+"-broken", hooks...)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			webhook := reg.Hooks["broken"].FullName
			annotation := tc.annotation
			if tc.phase == fakewebhook.Mutating {
				// Listed once the configuration is enforced: the apiservers
				// then know every configuration created before it.
				idx, err := speckit.MutatingIndex(ctx, f, reg.Name, webhook)
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				annotation = fmt.Sprintf(annotation, idx)
			}
			series := map[string]string{"name": webhook, "type": tc.metricType}
			before, err := metrics.Sum(ctx, cluster.MetricsConfigs(f.Env.Cluster), failOpenMetric, series)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())

			cm := speckit.Subject(f.Namespace)
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the webhook fails open")

			logs, ok := f.Env.Cluster.(cluster.AuditLog)
			gomega.Expect(ok).To(gomega.BeTrue(), "a cluster declaring AuditLog must expose its audit logs")
			gomega.Eventually(ctx, func() (map[string]string, error) {
				events, err := audit.Events(logs.AuditLogPaths(), audit.ForObject("create", "configmaps", f.Namespace, cm.Name))
				return failedOpenAnnotations(events), err
			}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
				Should(gomega.HaveKeyWithValue(annotation, webhook), "the audit event of the request must name the webhook that failed open")

			after, err := metrics.Sum(ctx, cluster.MetricsConfigs(f.Env.Cluster), failOpenMetric, series)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(after-before).To(gomega.BeNumerically("==", 1), "%s{name=%q,type=%q} must count the one fail-open", failOpenMetric, webhook, tc.metricType)
		})
	}
})

// failedOpenAnnotations collects the failed-open.* annotations of events.
func failedOpenAnnotations(events []auditv1.Event) map[string]string {
	out := map[string]string{}
	for _, e := range events {
		for k, v := range e.Annotations {
			if strings.HasPrefix(k, "failed-open.") {
				out[k] = v
			}
		}
	}
	return out
}
