package ordering

import (
	"context"
	"encoding/json"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var mutatingBeforeValidating = spec.Spec{
	ShortName: "MutatingBeforeValidating",
	Suite:     "ordering",
	Description: "For each request (create, update, json/merge/strategic/apply patch, status subresource), both mutating " +
		"webhooks (two configurations) have answered before either validating webhook (two configurations) is called.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 Requirements for extensible admission: object mutations must happen before object validations; " +
		"000 REST flows (create, update, patch): admit.ApplyMutations comes before admit.Validate",
	Manifests: []string{"ordering/configmap.yaml", "ordering/service.yaml"},
}

// requestFlow is one way of sending a request through admission. setUp
// creates what the request needs; send sends the request, whose object
// carries nonce in requestAnnotation.
type requestFlow struct {
	name        string
	operation   string // as the AdmissionReview names it
	subResource string
	setUp       func(ctx context.Context, f *harness.Framework) error
	send        func(ctx context.Context, f *harness.Framework, nonce string) error
}

// The subject ConfigMap exists before the update and patch flows; its
// set-up annotation is what the patches replace.
func createSubjectConfigMap(ctx context.Context, f *harness.Framework) error {
	var cm corev1.ConfigMap
	if err := fixture(f, "ordering/configmap.yaml", &cm, "set-up"); err != nil {
		return err
	}
	_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
	return err
}

func createSubjectService(ctx context.Context, f *harness.Framework) error {
	var svc corev1.Service
	if err := fixture(f, "ordering/service.yaml", &svc, ""); err != nil {
		return err
	}
	_, err := f.Client.CoreV1().Services(f.Namespace).Create(ctx, &svc, metav1.CreateOptions{})
	return err
}

func noSetUp(context.Context, *harness.Framework) error { return nil }

// patchSubject patches the subject ConfigMap's request annotation to nonce
// with the given patch type.
func patchSubject(pt types.PatchType, body func(nonce string) ([]byte, error), opts metav1.PatchOptions) func(context.Context, *harness.Framework, string) error {
	return func(ctx context.Context, f *harness.Framework, nonce string) error {
		data, err := body(nonce)
		if err != nil {
			return err
		}
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Patch(ctx, "subject", pt, data, opts)
		return err
	}
}

func annotationPatch(nonce string) ([]byte, error) {
	return json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{requestAnnotation: nonce}}})
}

var requestFlows = []requestFlow{
	{name: "create", operation: "CREATE", setUp: noSetUp,
		send: func(ctx context.Context, f *harness.Framework, nonce string) error {
			var cm corev1.ConfigMap
			if err := fixture(f, "ordering/configmap.yaml", &cm, nonce); err != nil {
				return err
			}
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
			return err
		}},
	{name: "update", operation: "UPDATE", setUp: createSubjectConfigMap,
		send: func(ctx context.Context, f *harness.Framework, nonce string) error {
			cm, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, "subject", metav1.GetOptions{})
			if err != nil {
				return err
			}
			cm.Annotations[requestAnnotation] = nonce
			cm.Data["updated"] = "by the client"
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
			return err
		}},
	{name: "json patch", operation: "UPDATE", setUp: createSubjectConfigMap,
		send: patchSubject(types.JSONPatchType, func(nonce string) ([]byte, error) {
			return json.Marshal([]fakewebhook.PatchOperation{{Op: "replace", Path: "/metadata/annotations/" + escape(requestAnnotation), Value: nonce}})
		}, metav1.PatchOptions{})},
	{name: "merge patch", operation: "UPDATE", setUp: createSubjectConfigMap, send: patchSubject(types.MergePatchType, annotationPatch, metav1.PatchOptions{})},
	{name: "strategic patch", operation: "UPDATE", setUp: createSubjectConfigMap, send: patchSubject(types.StrategicMergePatchType, annotationPatch, metav1.PatchOptions{})},
	{name: "apply patch", operation: "UPDATE", setUp: createSubjectConfigMap,
		send: patchSubject(types.ApplyPatchType, func(nonce string) ([]byte, error) {
			return json.Marshal(map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "subject", "annotations": map[string]string{requestAnnotation: nonce}},
				"data":     map[string]string{"applied": "by the client"},
			})
		}, metav1.PatchOptions{FieldManager: "admission-conformance", Force: ptr.To(true)})},
	{name: "status subresource update", operation: "UPDATE", subResource: "status", setUp: createSubjectService,
		send: func(ctx context.Context, f *harness.Framework, nonce string) error {
			svc, err := f.Client.CoreV1().Services(f.Namespace).Get(ctx, "subject", metav1.GetOptions{})
			if err != nil {
				return err
			}
			svc.Annotations[requestAnnotation] = nonce
			svc.Status.Conditions = append(svc.Status.Conditions, metav1.Condition{
				Type: "AdmissionConformance", Status: metav1.ConditionTrue, Reason: "Checked",
				Message: "set by the ordering suite", LastTransitionTime: metav1.Now(),
			})
			_, err = f.Client.CoreV1().Services(f.Namespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
			return err
		}},
}

// The calls of one request are found by a nonce the request's object
// carries (requestAnnotation), not by AdmissionReview uid, which is per call.
var _ = harness.Describe(mutatingBeforeValidating, func(f *harness.Framework) {
	ginkgo.DescribeTable("calls every mutating webhook before any validating webhook", append([]any{
		func(ctx ginkgo.SpecContext, flow requestFlow) {
			name := flow.name
			gomega.Expect(flow.setUp(ctx, f)).To(gomega.Succeed(), "set up the %s", name)

			// Every hook sees configmaps and services/status; each mutating
			// hook leaves its mark so its answer really is a mutation.
			matches := rule("", ops(opCreate, opUpdate), "configmaps", "services/status")
			hook := func(name string, b fakewebhook.Behaviour) harness.Hook {
				return harness.Hook{Name: name, Behaviour: b, Rules: matches}
			}
			// Validating first: on a control plane that never calls mutating
			// webhooks, the failure then names the mutating configuration.
			va, err := f.RegisterValidating(ctx, "validate-a", hook("v1", allow()))
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			vb, err := f.RegisterValidating(ctx, "validate-b", hook("v2", allow()))
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			ma, err := f.RegisterMutating(ctx, "mutate-a", hook("m1", patch(annotate("admission-conformance.io/m1", "mutated"))))
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the mutating webhooks must be called at all")
			mb, err := f.RegisterMutating(ctx, "mutate-b", hook("m2", patch(annotate("admission-conformance.io/m2", "mutated"))))
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the mutating webhooks must be called at all")

			nonce := newNonce()
			gomega.Expect(flow.send(ctx, f, nonce)).To(gomega.Succeed(), "the %s request", name)

			hooks := map[string]string{"m1": ma.Hooks["m1"].Path, "m2": mb.Hooks["m2"].Path, "v1": va.Hooks["v1"].Path, "v2": vb.Hooks["v2"].Path}
			all, err := requestCalls(ctx, f, nonce, hooks["m1"], hooks["m2"], hooks["v1"], hooks["v2"])
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			for _, h := range []string{"m1", "m2", "v1", "v2"} {
				got := all.onPath(hooks[h])
				gomega.Expect(got).To(gomega.HaveLen(1), "webhook %s must be called once for the %s request", h, name)
				gomega.Expect(got[0].Operation).To(gomega.Equal(flow.operation), "operation webhook %s saw", h)
				gomega.Expect(got[0].SubResource).To(gomega.Equal(flow.subResource), "subresource webhook %s saw", h)
			}

			lastMutating, answered := all.inPhase(fakewebhook.Mutating).lastAnswer()
			gomega.Expect(answered).To(gomega.BeTrue(), "every mutating webhook must have answered")
			firstValidating, _ := all.inPhase(fakewebhook.Validating).firstReceipt()
			gomega.Expect(lastMutating.RespondedAt.Before(firstValidating.ReceivedAt)).To(gomega.BeTrue(),
				"every mutation must be finished before validation starts: %s answered at %s, %s was called at %s",
				lastMutating.Webhook, lastMutating.Responded, firstValidating.Webhook, firstValidating.Received)

			f.Record(results.Measurement{Name: "mutating-answer-to-validating-call", Unit: "ms",
				Value:  firstValidating.ReceivedAt.Sub(lastMutating.RespondedAt).Seconds() * 1000,
				Labels: map[string]string{"flow": name}})
		}}, flowEntries()...)...,
	)
})

// flowEntries is one table entry per request flow.
func flowEntries() []any {
	entries := make([]any, len(requestFlows))
	for i, flow := range requestFlows {
		entries[i] = ginkgo.Entry("on "+flow.name, flow)
	}
	return entries
}
