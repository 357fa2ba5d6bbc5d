package policies

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyParamRefErrors = spec.Spec{
	ShortName: "PolicyParamRefConfiguration",
	Suite:     "webhooks",
	Description: "A binding's paramRef that cannot be used is a configuration error judged by failurePolicy (Fail denies " +
		"naming it, Ignore admits): a namespaced paramRef without namespace on a request about a cluster-scoped object, " +
		"and a paramRef.namespace for a cluster-scoped paramKind; a binding without paramRef evaluates its policy with " +
		"params null.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ParamRef.namespace (\"if paramKind is cluster-scoped, this field MUST be unset\"; " +
		"\"if this is left empty the binding must not match any cluster-scoped resources, which will result in an error\"), " +
		"ValidatingAdmissionPolicyBindingSpec.paramRef",
}

var _ = harness.Describe(policyParamRefErrors, func(f *harness.Framework) {
	// namespace is a dry-run Namespace create, labelled for the case: a
	// cluster-scoped request, judged and never stored, that every run may
	// make (creating namespaces is a right every run holds; a ClusterRole
	// would need a right no run needs).
	namespace := func(ctx context.Context) error {
		_, err := f.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
			ObjectMeta: metav1.ObjectMeta{GenerateName: f.Namespace + "-", Labels: map[string]string{speckit.ProbeLabel: f.Namespace}}},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	namespaces := func() *admissionregistrationv1.MatchResources {
		return &admissionregistrationv1.MatchResources{
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: f.Namespace}},
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"namespaces"},
					Scope: ptr.To(admissionregistrationv1.ClusterScope)},
			}}},
		}
	}
	for _, fp := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		ginkgo.It(fmt.Sprintf("a namespaced paramRef without namespace on a cluster-scoped request, failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "cluster-request", admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(fp), ParamKind: speckit.ParamKindSA, MatchConstraints: namespaces(),
				Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
			}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction(),
				MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}},
				ParamRef:       &admissionregistrationv1.ParamRef{Name: "params", ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)}})).To(gomega.Succeed())
			err := namespace(ctx)
			if fp == admissionregistrationv1.Ignore {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under Ignore a configuration error admits")
				return
			}
			gomega.Expect(err).To(gomega.HaveOccurred(), "under Fail a configuration error denies")
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(speckit.VAPDenied(f, "cluster-request",
				"failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")))
		})

		ginkgo.It(fmt.Sprintf("a paramRef.namespace for a cluster-scoped paramKind, failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "cluster-param", admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(fp), ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "Namespace"},
				Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
			}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction(),
				ParamRef: &admissionregistrationv1.ParamRef{Name: f.Namespace, Namespace: f.Namespace, ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)}})).To(gomega.Succeed())
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "subject", nil), metav1.CreateOptions{})
			if fp == admissionregistrationv1.Ignore {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under Ignore a configuration error admits")
				return
			}
			gomega.Expect(err).To(gomega.HaveOccurred(), "under Fail a configuration error denies")
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(speckit.VAPDenied(f, "cluster-param",
				"failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`")))
		})
	}

	ginkgo.It("a binding without paramRef evaluates its policy with params null", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "no-ref", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), ParamKind: speckit.ParamKindSA,
			Validations: []admissionregistrationv1.Validation{{Expression: "params != null", Message: "params are null"}},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "subject", nil), metav1.CreateOptions{})
		speckit.ExpectPolicyDenial(err, 422, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "no-ref", "params are null"))
	})
})
