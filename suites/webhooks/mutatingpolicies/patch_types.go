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

var mutatingPolicyPatchTypes = spec.Spec{
	ShortName: "MutatingPolicyPatchTypes",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy applies its mutations in order (ApplyConfiguration merges, JSONPatch adds, " +
		"replaces and removes), reads its params, skips requests its matchConditions exclude, and under failurePolicy " +
		"Fail denies a request whose mutation errors while under Ignore it skips that mutation alone.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.spec.mutations, failurePolicy, paramKind",
}

var _ = harness.Describe(mutatingPolicyPatchTypes, func(f *harness.Framework) {
	subjectData := func() *corev1.ConfigMap {
		return speckit.ConfigMap(f, "subject", map[string]string{"existing": "old", "removed": "soon", "kept": "as sent"})
	}
	create := func(ctx ginkgo.SpecContext, cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		return f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	}

	ginkgo.It("ApplyConfiguration and JSONPatch, applied in order, each seeing the previous result", func(ctx ginkgo.SpecContext) {
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			// The replacement value comes through two variables, the
			// second composing the first.
			Variables: []admissionregistrationv1.Variable{{Name: "base", Expression: `"ne"`}, {Name: "replacement", Expression: `variables.base + "w"`}},
			Mutations: []mutatingpolicy.Mutation{
				speckit.ApplyConfiguration(`Object{data: {"applied": "yes"}, metadata: Object.metadata{labels: {"mutated": "true"}}}`),
				speckit.JSONPatch(`[
					JSONPatch{op: "add", path: "/data/patched", value: object.data["applied"] + "-then-patched"},
					JSONPatch{op: "replace", path: "/data/existing", value: variables.replacement},
					JSONPatch{op: "remove", path: "/data/removed"}
				]`),
			},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "patches", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		got, err := create(ctx, subjectData())
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Data).To(gomega.Equal(map[string]string{"applied": "yes", "patched": "yes-then-patched", "existing": "new", "kept": "as sent"}),
			"ApplyConfiguration must merge data.applied, then JSONPatch (seeing it) add, replace (with the variables' value) and remove")
		gomega.Expect(got.Labels).To(gomega.HaveKeyWithValue("mutated", "true"), "ApplyConfiguration must merge labels")
	})

	ginkgo.It("params: the mutation reads the binding's param", func(ctx ginkgo.SpecContext) {
		_, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, speckit.ParamSA(f.Namespace, "params", "from the param", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     speckit.ParamKindSA,
			Mutations:     []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{data: {"param": string(params.metadata.annotations["forbidden"])}}`)},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "params", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{ParamRef: &admissionregistrationv1.ParamRef{
			Name: "params", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}})).To(gomega.Succeed())
		got, err := create(ctx, subjectData())
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Data).To(gomega.HaveKeyWithValue("param", "from the param"), "the mutation must see the param named by paramRef")
	})

	ginkgo.It("params: with the binding's param missing, parameterNotFoundAction Allow admits the request unmutated", func(ctx ginkgo.SpecContext) {
		// admissionregistration.k8s.io/v1 ParamRef.parameterNotFoundAction:
		// Allow means "no params found" is a successful evaluation without the
		// mutation, not a configuration error judged by failurePolicy Fail.
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     speckit.ParamKindSA,
			Mutations:     []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{data: {"param": string(params.metadata.name)}}`)},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "absent-param", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{ParamRef: &admissionregistrationv1.ParamRef{
			Name: "absent", ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)}})).To(gomega.Succeed())
		got, err := create(ctx, subjectData())
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "parameterNotFoundAction Allow must admit a request whose param is missing")
		gomega.Expect(got.Data).To(gomega.Equal(subjectData().Data), "a binding without its param must not mutate")
	})

	ginkgo.It("params: with the binding's param missing, parameterNotFoundAction Deny denies the request naming policy and binding", func(ctx ginkgo.SpecContext) {
		// A binding whose param is missing and whose
		// parameterNotFoundAction is Deny is a configuration error, judged
		// by failurePolicy Fail: the request is denied.
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     speckit.ParamKindSA,
			Mutations:     []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{data: {"param": string(params.metadata.name)}}`)},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "denied-param", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{ParamRef: &admissionregistrationv1.ParamRef{
			Name: "absent", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}})).To(gomega.Succeed())
		_, err := create(ctx, subjectData())
		gomega.Expect(err).To(gomega.HaveOccurred(), "parameterNotFoundAction Deny must deny a request whose param is missing")
		var status apierrors.APIStatus
		gomega.Expect(errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T", err)
		name := speckit.PolicyName(f, "denied-param")
		gomega.Expect(status.Status().Message).To(gomega.HaveSuffix("policy '"+name+"' with binding '"+name+"' denied request: "+
			"failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"),
			"the denial must name the policy, the binding and the missing param (code %d, reason %s)", status.Status().Code, status.Status().Reason)
	})

	ginkgo.It("matchConditions: a request a condition excludes is not mutated", func(ctx ginkgo.SpecContext) {
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy:   ptr.To(admissionregistrationv1.Fail),
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "wanted", Expression: `object.metadata.name != "unwanted"`}},
			Mutations:       []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{data: {"applied": "yes"}}`)},
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "conditions", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		got, err := create(ctx, speckit.ConfigMap(f, "unwanted", map[string]string{"k": "v"}))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Data).NotTo(gomega.HaveKey("applied"), "a false matchCondition must skip the mutation")
		got, err = create(ctx, speckit.ConfigMap(f, "wanted", map[string]string{"k": "v"}))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Data).To(gomega.HaveKeyWithValue("applied", "yes"))
	})

	erroring := []mutatingpolicy.Mutation{
		speckit.JSONPatch(`[JSONPatch{op: "add", path: "/data/copy", value: object.data["absent"]}]`),
		speckit.ApplyConfiguration(`Object{data: {"after": "applied"}}`),
	}
	ginkgo.It("failurePolicy Fail: a mutation that errors denies the request naming policy and binding", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.MAPWith(ctx, f, "fail", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), Mutations: erroring}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		_, err := create(ctx, subjectData())
		gomega.Expect(err).To(gomega.HaveOccurred(), "failurePolicy Fail must deny when a mutation fails")
		var status apierrors.APIStatus
		gomega.Expect(errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T", err)
		gomega.Expect(status.Status().Code).To(gomega.Equal(int32(http.StatusForbidden)), "a failed mutation is denied with HTTP 403: %v", err)
		gomega.Expect(status.Status().Reason).To(gomega.Equal(metav1.StatusReasonInvalid), "a failed mutation is denied with reason Invalid: %v", err)
		name := speckit.PolicyName(f, "fail")
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("policy '"+name+"' with binding '"+name+"' denied request: "),
			"the denial must name the policy and binding")
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("no such key: absent"), "the denial must carry the evaluation error")
	})

	ginkgo.It("failurePolicy Ignore: the failing mutation is skipped, the others apply", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.MAPWith(ctx, f, "ignore", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Ignore), Mutations: erroring}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		got, err := create(ctx, subjectData())
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "failurePolicy Ignore must admit when a mutation fails")
		gomega.Expect(got.Data).To(gomega.HaveKeyWithValue("after", "applied"), "the mutation after the failing one must still apply")
		gomega.Expect(got.Data).NotTo(gomega.HaveKey("copy"))
	})
})
