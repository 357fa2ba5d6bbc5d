package policies

import (
	"context"
	"net/http"
	"strings"

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

var policyParams = spec.Spec{
	ShortName: "PolicyParams",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy binding's paramRef selects its params: by name in the request's namespace " +
		"(or paramRef.namespace), by label selector (each param evaluated), cluster-scoped params by name; with no " +
		"param found, parameterNotFoundAction Allow skips the policy and Deny denies; a custom resource kind serves as params too.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding.spec.paramRef",
}

// forbidsParamValue denies configmaps whose data.value equals the param's forbidden annotation.
var forbidsParamValue = admissionregistrationv1.ValidatingAdmissionPolicySpec{
	FailurePolicy: ptr.To(admissionregistrationv1.Fail),
	ParamKind:     speckit.ParamKindSA,
	Validations: []admissionregistrationv1.Validation{{
		Expression:        "!has(object.data) || !('value' in object.data) || object.data['value'] != params.metadata.annotations['forbidden']",
		MessageExpression: "'value ' + params.metadata.annotations['forbidden'] + ' is forbidden by ' + params.metadata.namespace + '/' + params.metadata.name",
	}},
}

var _ = harness.Describe(policyParams, func(f *harness.Framework) {
	create := func(ctx context.Context, cm *corev1.ConfigMap) error {
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	param := func(ctx context.Context, sa *corev1.ServiceAccount) error {
		_, err := f.Client.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, sa, metav1.CreateOptions{})
		return err
	}
	bindParams := func(ref admissionregistrationv1.ParamRef) admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec {
		return admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction(), ParamRef: &ref}
	}

	ginkgo.It("by name: the param is taken from the request's namespace when paramRef.namespace is empty", func(ctx ginkgo.SpecContext) {
		gomega.Expect(param(ctx, speckit.ParamSA(f.Namespace, "params", "red", nil))).To(gomega.Succeed())
		gomega.Expect(speckit.VAPWith(ctx, f, "name", forbidsParamValue, bindParams(admissionregistrationv1.ParamRef{
			Name: "params", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}))).To(gomega.Succeed())
		speckit.ExpectPolicyDenial(create(ctx, speckit.WithValue(f, "red", "red")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "name", "value red is forbidden by "+f.Namespace+"/params"))
		gomega.Expect(create(ctx, speckit.WithValue(f, "blue", "blue"))).To(gomega.Succeed(), "a value the param allows must be admitted")
	})

	ginkgo.It("by name in paramRef.namespace: the param is taken from that namespace", func(ctx ginkgo.SpecContext) {
		other, err := f.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			GenerateName: f.Namespace + "-params-", Labels: f.Labels()}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.CoreV1().Namespaces().Delete, other.Name)
		gomega.Expect(param(ctx, speckit.ParamSA(other.Name, "params", "green", nil))).To(gomega.Succeed())
		gomega.Expect(param(ctx, speckit.ParamSA(f.Namespace, "params", "red", nil))).To(gomega.Succeed())
		gomega.Expect(speckit.VAPWith(ctx, f, "other", forbidsParamValue, bindParams(admissionregistrationv1.ParamRef{
			Name: "params", Namespace: other.Name, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}))).To(gomega.Succeed())
		speckit.ExpectPolicyDenial(create(ctx, speckit.WithValue(f, "green", "green")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "other", "value green is forbidden by "+other.Name+"/params"))
		gomega.Expect(create(ctx, speckit.WithValue(f, "red", "red"))).To(gomega.Succeed(),
			"the param of paramRef.namespace, not the request namespace's, must be used")
	})

	ginkgo.It("by selector: every selected param is evaluated, unselected ones are not", func(ctx ginkgo.SpecContext) {
		sel := map[string]string{"admission-conformance.io/param-set": "a"}
		gomega.Expect(param(ctx, speckit.ParamSA(f.Namespace, "p1", "red", sel))).To(gomega.Succeed())
		gomega.Expect(param(ctx, speckit.ParamSA(f.Namespace, "p2", "blue", sel))).To(gomega.Succeed())
		gomega.Expect(param(ctx, speckit.ParamSA(f.Namespace, "p3", "green", map[string]string{"admission-conformance.io/param-set": "b"}))).To(gomega.Succeed())
		gomega.Expect(speckit.VAPWith(ctx, f, "selector", forbidsParamValue, bindParams(admissionregistrationv1.ParamRef{
			Selector: &metav1.LabelSelector{MatchLabels: sel}, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}))).To(gomega.Succeed())
		speckit.ExpectPolicyDenial(create(ctx, speckit.WithValue(f, "red", "red")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "selector", "value red is forbidden by "+f.Namespace+"/p1"))
		speckit.ExpectPolicyDenial(create(ctx, speckit.WithValue(f, "blue", "blue")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "selector", "value blue is forbidden by "+f.Namespace+"/p2"))
		gomega.Expect(create(ctx, speckit.WithValue(f, "green", "green"))).To(gomega.Succeed(), "a param the selector does not select must not apply")
	})

	ginkgo.It("cluster-scoped params (v1 Namespace) by name and by selector", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "Namespace"},
			Validations: []admissionregistrationv1.Validation{{
				Expression:        "params.kind == 'Namespace' && has(object.data) && object.data['owner'] == params.metadata.name",
				MessageExpression: "'owner must be ' + params.metadata.name",
			}},
		}
		name := speckit.PolicyName(f, "cluster")
		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: s})).To(gomega.Succeed())
		for _, b := range []struct {
			suffix string
			ref    admissionregistrationv1.ParamRef
		}{
			{"cluster", admissionregistrationv1.ParamRef{Name: f.Namespace}},
			{"cluster-sel", admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}}}},
		} {
			b.ref.ParameterNotFoundAction = ptr.To(admissionregistrationv1.DenyAction)
			gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, b.suffix)},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: speckit.DenyAction(), ParamRef: &b.ref}})).To(gomega.Succeed())
		}
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
		speckit.ExpectPolicyDenial(create(ctx, speckit.ConfigMap(f, "stranger", map[string]string{"owner": "someone-else"})), http.StatusUnprocessableEntity,
			metav1.StatusReasonInvalid, "denied request: owner must be "+f.Namespace)
		gomega.Expect(create(ctx, speckit.ConfigMap(f, "owned", map[string]string{"owner": f.Namespace}))).To(gomega.Succeed(),
			"the cluster-scoped param (the spec's Namespace) must be found by name and by selector")
	})

	ginkgo.It("no param found: parameterNotFoundAction Allow skips the policy, Deny denies (by name and by selector)", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     speckit.ParamKindSA,
			Validations:   []admissionregistrationv1.Validation{{Expression: "false", Message: "evaluated without a param"}},
		}
		none := &metav1.LabelSelector{MatchLabels: map[string]string{"admission-conformance.io/param-set": "none"}}
		bindings := map[string]admissionregistrationv1.ParamRef{
			"allow-name": {Name: "absent", ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)},
			"allow-sel":  {Selector: none, ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)},
			"deny-name":  {Name: "absent", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)},
			"deny-sel":   {Selector: none, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)},
		}
		for suffix, ref := range bindings {
			policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, suffix)}, Spec: *s.DeepCopy()}
			policy.Spec.MatchConstraints = speckit.PolicyConfigMapRules()
			policy.Spec.MatchConstraints.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"case": suffix}}
			policy.Spec.MatchConstraints = speckit.Scoped(f, policy.Spec.MatchConstraints)
			gomega.Expect(speckit.CreateVAP(ctx, f, policy)).To(gomega.Succeed())
			gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, suffix)},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, suffix), ValidationActions: speckit.DenyAction(), ParamRef: &ref}})).To(gomega.Succeed())
		}
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
		labelled := func(suffix string) *corev1.ConfigMap {
			cm := speckit.ConfigMap(f, suffix, nil)
			cm.Labels = map[string]string{"case": suffix}
			return cm
		}
		for _, suffix := range []string{"allow-name", "allow-sel"} {
			gomega.Expect(create(ctx, labelled(suffix))).To(gomega.Succeed(), "%s: parameterNotFoundAction Allow must admit without evaluating", suffix)
		}
		for _, suffix := range []string{"deny-name", "deny-sel"} {
			speckit.ExpectPolicyDenial(create(ctx, labelled(suffix)), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				speckit.VAPDenied(f, suffix, "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"))
		}
	})

	// A custom resource kind has no informer of the apiserver's own: the
	// policy starts one for its paramKind.
	ginkgo.It("a custom resource as params, by name", func(ctx ginkgo.SpecContext) {
		crd := speckit.WidgetCRD(f)
		gomega.Expect(speckit.CreateCRD(ctx, f, crd)).To(gomega.Succeed())
		res := speckit.Widgets(f, crd, "v1")
		_, err := res.Create(ctx, speckit.Widget(f, crd, "v1", "params", map[string]any{"color": "red"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(func(ctx context.Context) error {
			return speckit.IgnoreNotFound(ctx, func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
				return res.Delete(ctx, name, opts)
			}, "params")
		})
		gomega.Expect(speckit.VAPWith(ctx, f, "custom", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     &admissionregistrationv1.ParamKind{APIVersion: crd.Spec.Group + "/v1", Kind: crd.Spec.Names.Kind},
			Validations: []admissionregistrationv1.Validation{{
				Expression:        "!has(object.data) || !('value' in object.data) || object.data['value'] != params.spec.color",
				MessageExpression: "'value ' + params.spec.color + ' is forbidden by ' + params.kind + ' ' + params.metadata.name",
			}},
		}, bindParams(admissionregistrationv1.ParamRef{Name: "params", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}))).To(gomega.Succeed())
		// The apiserver resolves a paramKind through its discovery of
		// served kinds, which follows a new CRD by up to 30 s (its
		// RESTMapper is reset that often), and retries the policy with
		// backoff: until then the policy reports the kind unresolved, and
		// that answer alone is waited out, for up to three object-state
		// bounds.
		gomega.Eventually(ctx, func(ctx context.Context) bool {
			err = create(ctx, speckit.WithValue(f, "red", "red"))
			return err == nil || !strings.Contains(err.Error(), "failed to find resource referenced by paramKind")
		}).WithTimeout(3 * f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.BeTrue())
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "custom", "value red is forbidden by "+crd.Spec.Names.Kind+" params"))
		gomega.Expect(create(ctx, speckit.WithValue(f, "blue", "blue"))).To(gomega.Succeed(), "a value the custom resource param allows must be admitted")
	})
})
