package policycel

import (
	"fmt"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyVariablesAndMessages = spec.Spec{
	ShortName: "PolicyVariablesAndMessages",
	Suite:     "webhooks",
	Description: "ValidatingAdmissionPolicy variables compose (one referencing another) and are evaluated only when used; " +
		"a denial's message is the messageExpression's value, falling back to message when it errors, is blank or " +
		"spans lines, and to \"failed expression: <expression>\" without a message.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.variables, Validation.messageExpression",
}

var _ = harness.Describe(policyVariablesAndMessages, func(f *harness.Framework) {
	ginkgo.It("variables compose: a variable referencing another, used by expression and messageExpression", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Variables: []admissionregistrationv1.Variable{
				{Name: "value", Expression: "has(object.data) && 'value' in object.data ? object.data['value'] : 'none'"},
				{Name: "tagged", Expression: "variables.value + '-checked'"},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "variables.tagged != 'bad-checked'", MessageExpression: "'tagged ' + variables.tagged",
			}},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "vars", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.WithValue(f, "bad", "bad"), metav1.CreateOptions{})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "vars", "tagged bad-checked"))
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.WithValue(f, "good", "good"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "variables.tagged of value good is good-checked: admitted")
	})

	ginkgo.It("a variable is evaluated only when an expression uses it", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Variables:     []admissionregistrationv1.Variable{{Name: "boom", Expression: "object.data['absent']"}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "object.metadata.name == 'short-circuit' || variables.boom == 'x'", Message: "boom is not x",
			}},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "lazy", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.WithValue(f, "short-circuit", "v"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "an unused variable must not be evaluated (its error would deny under failurePolicy Fail)")
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.WithValue(f, "evaluated", "v"), metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "a used variable that errors must deny under failurePolicy Fail")
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("no such key: absent"), "the denial must carry the variable's evaluation error")
	})

	ginkgo.It("messageExpression, its fallbacks to message, and the default message", func(ctx ginkgo.SpecContext) {
		fails := func(key string) string { return fmt.Sprintf("!has(object.data) || !('%s' in object.data)", key) }
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations: []admissionregistrationv1.Validation{
				{Expression: fails("dynamic"), Message: "static message", MessageExpression: "'dynamic message for ' + object.metadata.name"},
				{Expression: fails("erroring"), Message: "fallback for an error", MessageExpression: "string(object.data['absent'])"},
				{Expression: fails("blank"), Message: "fallback for a blank", MessageExpression: "'   '"},
				{Expression: fails("multiline"), Message: "fallback for lines", MessageExpression: "'one\\ntwo'"},
				{Expression: fails("trimmed"), MessageExpression: "'  trimmed  '"},
				{Expression: fails("default")},
			},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "messages", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		for key, message := range map[string]string{
			"dynamic":   "dynamic message for dynamic",
			"erroring":  "fallback for an error",
			"blank":     "fallback for a blank",
			"multiline": "fallback for lines",
			"trimmed":   "trimmed",
			"default":   "failed expression: " + fails("default"),
		} {
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, key, map[string]string{key: "x"}), metav1.CreateOptions{})
			speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "messages", message))
		}
	})

	ginkgo.It("the first failing validation's message is the denial's", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations: []admissionregistrationv1.Validation{
				{Expression: "true", Message: "never fails"},
				{Expression: "false", Message: "first failure"},
				{Expression: "false", Message: "second failure"},
			},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "order", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.WithValue(f, "subject", "v"), metav1.CreateOptions{})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "order", "first failure"))
	})

	ginkgo.It("request and namespaceObject describe the request to expressions", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations: []admissionregistrationv1.Validation{{Expression: "false",
				MessageExpression: "request.operation + ' ' + request.resource.resource + ' ' + request.name + ' in ' + namespaceObject.metadata.name"}},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "request", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.WithValue(f, "described", "v"), metav1.CreateOptions{})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "request", "CREATE configmaps described in "+f.Namespace))
	})
})
