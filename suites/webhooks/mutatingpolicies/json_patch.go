package mutatingpolicies

import (
	"errors"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var mutatingPolicyJSONPatchOps = spec.Spec{
	ShortName: "MutatingPolicyJSONPatchOperations",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy's JSONPatch follows RFC 6902 for every operation: test, move, copy, add onto an " +
		"existing member (replaces it) and ~1-escaped paths apply; a test that does not hold leaves that patch unapplied " +
		"without an error (a guard: the request is admitted, later mutations apply); a remove of a missing member or a move " +
		"from one fails the patch, so under failurePolicy Fail the request is denied and nothing is stored (a replace of a " +
		"missing member is applied as an add by the pinned release: docs/upstream-defects.md, not asserted).",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.spec.mutations[].jsonPatch (RFC 6902)",
}

var _ = harness.Describe(mutatingPolicyJSONPatchOps, func(f *harness.Framework) {
	subjectData := func() *corev1.ConfigMap {
		cm := speckit.ConfigMap(f, "subject", map[string]string{"existing": "old", "removed": "soon", "kept": "as sent"})
		cm.Labels = map[string]string{"present": "yes"}
		return cm
	}

	ginkgo.It("test (holding), move, copy, add onto an existing member and ~1 escapes all apply", func(ctx ginkgo.SpecContext) {
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Mutations: []mutatingpolicy.Mutation{speckit.JSONPatch(`[
				JSONPatch{op: "test", path: "/data/existing", value: "old"},
				JSONPatch{op: "move", from: "/data/removed", path: "/data/moved"},
				JSONPatch{op: "copy", from: "/data/kept", path: "/data/copied"},
				JSONPatch{op: "add", path: "/data/existing", value: "over"},
				JSONPatch{op: "add", path: "/metadata/labels/example.com~1escaped", value: "yes"}
			]`)},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "ops", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		got, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, subjectData(), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Data).To(gomega.Equal(map[string]string{"existing": "over", "moved": "soon", "kept": "as sent", "copied": "as sent"}),
			"move takes the member away from its source, copy keeps it, add onto an existing member replaces it")
		gomega.Expect(got.Labels).To(gomega.Equal(map[string]string{"present": "yes", "example.com/escaped": "yes"}),
			"~1 in a path is a / of the member's name")
	})

	ginkgo.It("a test that does not hold leaves its patch unapplied without an error; the next mutation applies", func(ctx ginkgo.SpecContext) {
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Mutations: []mutatingpolicy.Mutation{
				speckit.JSONPatch(`[JSONPatch{op: "add", path: "/data/before", value: "x"}, JSONPatch{op: "test", path: "/data/existing", value: "not old"}, JSONPatch{op: "add", path: "/data/after", value: "x"}]`),
				speckit.ApplyConfiguration(`Object{data: {"next": "applied"}}`),
			},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "guard", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		got, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, subjectData(), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a failed test is a guard, not an error: the request is admitted")
		gomega.Expect(got.Data).To(gomega.Equal(map[string]string{"existing": "old", "removed": "soon", "kept": "as sent", "next": "applied"}),
			"no operation of the guarded patch applies (not even the one before the test), and the next mutation does")
	})

	for _, tc := range []struct{ name, patch string }{
		{"a remove of a missing member", `[JSONPatch{op: "add", path: "/data/after", value: "x"}, JSONPatch{op: "remove", path: "/data/absent"}]`},
		{"a move from a missing member", `[JSONPatch{op: "move", from: "/data/absent", path: "/data/after"}]`},
	} {
		ginkgo.It(tc.name+" fails the whole patch: denied under Fail, nothing stored", func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.MAPWith(ctx, f, "failing", mutatingpolicy.MutatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail), Mutations: []mutatingpolicy.Mutation{speckit.JSONPatch(tc.patch)},
			}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
			cm := subjectData()
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).To(gomega.HaveOccurred(), "%s must fail the mutation, and failurePolicy Fail deny the request", tc.name)
			var status apierrors.APIStatus
			gomega.Expect(errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T", err)
			gomega.Expect(status.Status().Code).To(gomega.Equal(int32(http.StatusForbidden)), "a failed mutation is denied with HTTP 403: %v", err)
			name := speckit.PolicyName(f, "failing")
			gomega.Expect(err.Error()).To(gomega.ContainSubstring("policy '" + name + "' with binding '" + name + "' denied request: "))
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
			gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a denied request stores nothing, got %v", err)
		})
	}
})
