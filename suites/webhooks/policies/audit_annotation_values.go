package policies

import (
	"fmt"
	"net/http"
	"sort"
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

var policyAuditAnnotationValues = spec.Spec{
	ShortName: "PolicyAuditAnnotationValues",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy auditAnnotation evaluated by several bindings publishes its unique values " +
		"joined by \", \" (one value when they are equal); a value over 10 KiB is truncated to 10 KiB; a valueExpression " +
		"that errors denies the request under failurePolicy Fail (422, naming the error) and is left out under Ignore.",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.AuditLog},
	Profile:  spec.Extended,
	Seed: "admissionregistration.k8s.io/v1 AuditAnnotation.valueExpression (\"If the result of the valueExpression is more " +
		"than 10kb in length, it will be truncated to 10kb ... All unique values produced by the valueExpressions will be joined " +
		"together in a comma-separated list\"), ValidatingAdmissionPolicySpec.failurePolicy (runtime errors)",
}

// auditValueLimit is the length a published audit annotation value is
// truncated to (10 KiB).
const auditValueLimit = 10 * 1024

var _ = harness.Describe(policyAuditAnnotationValues, func(f *harness.Framework) {
	create := func(ctx ginkgo.SpecContext, cm *corev1.ConfigMap) error {
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}

	ginkgo.It("several bindings: equal values published once, distinct values joined by a comma", func(ctx ginkgo.SpecContext) {
		name := speckit.PolicyName(f, "joined")
		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(admissionregistrationv1.Fail), ParamKind: speckit.ParamKindSA,
				AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "v", ValueExpression: "string(params.metadata.annotations['v'])"}}}})).To(gomega.Succeed())
		// Three params and three bindings: "all" binds every object to x,
		// "same" objects labelled set=same to x too, "other" those labelled
		// set=other to y.
		for _, p := range []struct{ binding, value, set string }{{"all", "x", ""}, {"same", "x", "same"}, {"other", "y", "other"}} {
			_, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
				Name: p.binding, Annotations: map[string]string{"v": p.value}}}, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			match := &admissionregistrationv1.MatchResources{}
			if p.set != "" {
				match.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"set": p.set}}
			}
			gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name + "-" + p.binding},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, MatchResources: match, ValidationActions: speckit.DenyAction(),
					ParamRef: &admissionregistrationv1.ParamRef{Name: p.binding, Namespace: f.Namespace,
						ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}}})).To(gomega.Succeed())
		}
		gomega.Expect(speckit.AwaitVAPsWithParams(ctx, f)).To(gomega.Succeed())

		labelled := func(name, set string) *corev1.ConfigMap {
			cm := speckit.ConfigMap(f, name, nil)
			cm.Labels = map[string]string{"set": set}
			return cm
		}
		gomega.Expect(create(ctx, labelled("same", "same"))).To(gomega.Succeed())
		gomega.Expect(speckit.CreateAnnotations(ctx, f, "same")).To(gomega.HaveKeyWithValue(name+"/v", "x"),
			"two bindings producing the same value publish it once")
		gomega.Expect(create(ctx, labelled("other", "other"))).To(gomega.Succeed())
		ann := speckit.CreateAnnotations(ctx, f, "other")
		gomega.Expect(ann).To(gomega.HaveKey(name + "/v"))
		values := strings.Split(ann[name+"/v"], ", ")
		sort.Strings(values)
		gomega.Expect(values).To(gomega.Equal([]string{"x", "y"}),
			"two bindings producing distinct values publish both joined by \", \", got %q", ann[name+"/v"])
	})

	ginkgo.It("a value over 10 KiB is truncated to 10 KiB", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "long", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "big", ValueExpression: "string(object.data.big)"}},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		big := strings.Repeat("0123456789", 1100) // 11,000 bytes
		gomega.Expect(create(ctx, speckit.ConfigMap(f, "long", map[string]string{"big": big}))).To(gomega.Succeed())
		ann := speckit.CreateAnnotations(ctx, f, "long")
		key := speckit.PolicyName(f, "long") + "/big"
		gomega.Expect(ann).To(gomega.HaveKey(key))
		gomega.Expect(ann[key]).To(gomega.HaveLen(auditValueLimit), "a value of %d bytes is truncated to 10 KiB", len(big))
		gomega.Expect(ann[key]).To(gomega.Equal(big[:auditValueLimit]), "the truncated value is the value's first 10 KiB")
	})

	for _, fp := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		ginkgo.It(fmt.Sprintf("a valueExpression that errors, failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "errors", admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(fp),
				AuditAnnotations: []admissionregistrationv1.AuditAnnotation{
					{Key: "absent", ValueExpression: "string(object.data['absent'])"},
					{Key: "present", ValueExpression: "string(object.data['present'])"},
				},
			}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
			err := create(ctx, speckit.ConfigMap(f, "subject", map[string]string{"present": "yes"}))
			prefix := speckit.PolicyName(f, "errors") + "/"
			if fp == admissionregistrationv1.Fail {
				speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
					speckit.VAPDenied(f, "errors", speckit.ExpressionError("string(object.data['absent'])", "no such key: absent")))
				return
			}
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under failurePolicy Ignore a valueExpression that errors is left out")
			ann := speckit.CreateAnnotations(ctx, f, "subject")
			gomega.Expect(ann).NotTo(gomega.HaveKey(prefix+"absent"), "the erroring annotation is left out")
			gomega.Expect(ann).To(gomega.HaveKeyWithValue(prefix+"present", "yes"), "the policy's other annotation is published")
		})
	}
})
