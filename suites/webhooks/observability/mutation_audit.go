package observability

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/audit"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var mutationAuditAnnotations = spec.Spec{
	ShortName: "MutationAuditAnnotations",
	Suite:     "webhooks",
	Description: "Every mutating webhook call leaves mutation.webhook.admission.k8s.io/round_R_index_N (configuration, webhook, " +
		"mutated: whether the call changed the object) on the request's audit event, and every patch applied leaves " +
		"patch.webhook.admission.k8s.io/round_R_index_N (configuration, webhook, patch, patchType) in events at level Request, " +
		"never at Metadata.",
	Features:  []features.Name{features.MutatingWebhook, features.AuditLog},
	Profile:   spec.Extended,
	Seed:      "k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/mutating/dispatcher.go (mutation and patch audit annotations, kubernetes PR 77824)",
	Isolation: speckit.CountsMutatingWebhooks,
}

const (
	mutationKeyPrefix = "mutation.webhook.admission.k8s.io/"
	patchKeyPrefix    = "patch.webhook.admission.k8s.io/"
)

// mutationAnnotation is the value of a mutation.webhook.admission.k8s.io key.
type mutationAnnotation struct {
	Configuration string `json:"configuration"`
	Webhook       string `json:"webhook"`
	Mutated       bool   `json:"mutated"`
}

// patchAnnotation is the value of a patch.webhook.admission.k8s.io key.
type patchAnnotation struct {
	Configuration string           `json:"configuration"`
	Webhook       string           `json:"webhook"`
	Patch         []map[string]any `json:"patch"`
	PatchType     string           `json:"patchType"`
}

var _ = harness.Describe(mutationAuditAnnotations, func(f *harness.Framework) {
	// The hooks, in their configuration's order: idle answers no patch
	// and is reinvoked (round 1) because patcher changed the object; noop
	// sends a patch that changes nothing; broken fails open.
	submitted := map[string]string{"submitted": "by the client"}
	register := func(ctx ginkgo.SpecContext) (config string, index map[string]int, names map[string]string) {
		reg, err := f.RegisterMutating(ctx, "audit",
			harness.Hook{Name: "idle", ReinvocationPolicy: ptr.To(admissionregistrationv1.IfNeededReinvocationPolicy)},
			harness.Hook{Name: "noop", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch,
				Patch: []fakewebhook.PatchOperation{{Op: "replace", Path: "/data/submitted", Value: submitted["submitted"]}}}},
			harness.Hook{Name: "patcher", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey}},
			harness.Hook{Name: "broken", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.InternalError}, FailurePolicy: admissionregistrationv1.Ignore})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		index, names = map[string]int{}, map[string]string{}
		for _, h := range []string{"idle", "noop", "patcher", "broken"} {
			names[h] = reg.Hooks[h].FullName
			// Listed once the configuration is enforced: the apiservers
			// then know every configuration created before it.
			index[h], err = speckit.MutatingIndex(ctx, f, reg.Name, names[h])
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		return reg.Name, index, names
	}
	// expected are the mutation annotations of one request through the
	// hooks. noop's mutated is not asserted (noopMutated): its patch
	// changes no field, but the pinned apiserver compares the object with
	// the patched one decoded back from JSON, whose managedFields times
	// lost their nanoseconds, and reports true; the documentation says
	// "whether the webhook mutated the object".
	expected := func(config string, index map[string]int, names map[string]string) map[string]mutationAnnotation {
		out := map[string]mutationAnnotation{}
		for h, mutated := range map[string]bool{"idle": false, "noop": noopMutated, "patcher": true, "broken": false} {
			out[fmt.Sprintf("%sround_0_index_%d", mutationKeyPrefix, index[h])] = mutationAnnotation{config, names[h], mutated}
		}
		out[fmt.Sprintf("%sround_1_index_%d", mutationKeyPrefix, index["idle"])] = mutationAnnotation{config, names["idle"], false}
		return out
	}

	ginkgo.It("create (logged at Metadata): mutation annotations for every call and round, no patch annotation", func(ctx ginkgo.SpecContext) {
		config, index, names := register(ctx)
		cm := speckit.ConfigMap(f, audit.RequestLevelName, submitted)
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		e := auditEvent(ctx, f, "create", cm.Name)
		gomega.Expect(e.Level).To(gomega.Equal(auditv1.LevelMetadata),
			"the harness's audit policy logs creates at Metadata (a create names no object for a Request-level rule to match)")
		gomega.Expect(mutationAnnotations(e, config, names["noop"])).To(gomega.Equal(expected(config, index, names)),
			"one mutation annotation per call (round 0 each hook, round 1 the reinvoked idle), mutated true only for the call that changed the object")
		gomega.Expect(patchAnnotations(e, config)).To(gomega.BeEmpty(), "patch annotations are Request level: a Metadata event has none")
	})

	ginkgo.It("update (logged at Request): mutation annotations and a patch annotation for each patch applied", func(ctx ginkgo.SpecContext) {
		cm := speckit.ConfigMap(f, audit.RequestLevelName, submitted)
		cm, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		config, index, names := register(ctx)
		// Sent without data.mutated, so patcher changes the object again.
		cm.Data = map[string]string{"submitted": submitted["submitted"], "round": "two"}
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		e := auditEvent(ctx, f, "update", cm.Name)
		gomega.Expect(e.Level).To(gomega.Equal(auditv1.LevelRequest),
			"the harness's audit policy logs requests naming %s at Request level (framework/audit.Policy)", audit.RequestLevelName)
		gomega.Expect(mutationAnnotations(e, config, names["noop"])).To(gomega.Equal(expected(config, index, names)),
			"one mutation annotation per call, mutated true only for the call that changed the object")
		gomega.Expect(patchAnnotations(e, config)).To(gomega.Equal(map[string]patchAnnotation{
			fmt.Sprintf("%sround_0_index_%d", patchKeyPrefix, index["noop"]): {Configuration: config, Webhook: names["noop"], PatchType: "JSONPatch",
				Patch: []map[string]any{{"op": "replace", "path": "/data/submitted", "value": submitted["submitted"]}}},
			fmt.Sprintf("%sround_0_index_%d", patchKeyPrefix, index["patcher"]): {Configuration: config, Webhook: names["patcher"], PatchType: "JSONPatch",
				Patch: []map[string]any{{"op": "add", "path": "/data/mutated", "value": "by the webhook"}}},
		}), "a patch annotation for every patch applied (even one that changed nothing), none for a call without a patch or a failed call")
	})
})

// auditEvent waits for the one ResponseComplete audit event of verb on the
// ConfigMap name in the spec's namespace.
func auditEvent(ctx ginkgo.SpecContext, f *harness.Framework, verb, name string) auditv1.Event {
	logs, ok := f.Env.Cluster.(cluster.AuditLog)
	gomega.ExpectWithOffset(1, ok).To(gomega.BeTrue(), "a cluster declaring AuditLog must expose its audit logs")
	var out []auditv1.Event
	gomega.EventuallyWithOffset(1, ctx, func() (int, error) {
		events, err := audit.Events(logs.AuditLogPaths(), audit.ForObject(verb, "configmaps", f.Namespace, name))
		out = events
		return len(events), err
	}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
		Should(gomega.Equal(1), "the %s of %s must have one ResponseComplete audit event", verb, name)
	return out[0]
}

// noopMutated stands for the mutated value of a call whose patch changed
// no field, which the specs do not assert (see expected).
const noopMutated = false

// mutationAnnotations decodes the mutation annotations of e naming config,
// with the mutated value of webhook unasserted (set to noopMutated).
func mutationAnnotations(e auditv1.Event, config, unasserted string) map[string]mutationAnnotation {
	out := map[string]mutationAnnotation{}
	for k, v := range e.Annotations {
		if !strings.HasPrefix(k, mutationKeyPrefix) {
			continue
		}
		var a mutationAnnotation
		gomega.ExpectWithOffset(1, json.Unmarshal([]byte(v), &a)).To(gomega.Succeed(), "%s must be JSON, got %s", k, v)
		if a.Configuration == config {
			if a.Webhook == unasserted {
				a.Mutated = noopMutated
			}
			out[k] = a
		}
	}
	return out
}

// patchAnnotations decodes the patch annotations of e naming config.
func patchAnnotations(e auditv1.Event, config string) map[string]patchAnnotation {
	out := map[string]patchAnnotation{}
	for k, v := range e.Annotations {
		if !strings.HasPrefix(k, patchKeyPrefix) {
			continue
		}
		var a patchAnnotation
		gomega.ExpectWithOffset(1, json.Unmarshal([]byte(v), &a)).To(gomega.Succeed(), "%s must be JSON, got %s", k, v)
		if a.Configuration == config {
			out[k] = a
		}
	}
	return out
}
