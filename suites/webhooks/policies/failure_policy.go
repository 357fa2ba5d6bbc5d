package policies

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

var policyFailurePolicy = spec.Spec{
	ShortName: "PolicyFailurePolicy",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy whose expression errors at run time, whose paramKind names no resource, or whose " +
		"binding's param is missing (parameterNotFoundAction Deny) denies under failurePolicy Fail and admits under Ignore; " +
		"expressions that do not compile are refused when the policy is created.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.failurePolicy",
}

// erroring fails at run time on objects without data.absent.
const erroring = "object.data['absent'] == 'x'"

var _ = harness.Describe(policyFailurePolicy, func(f *harness.Framework) {
	failureCases := []struct {
		name     string
		spec     func() admissionregistrationv1.ValidatingAdmissionPolicySpec
		binding  func() admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec
		message  string // the denial under Fail, after "... denied request: "
		noBindng bool   // a policy-level error: the message names no binding
		// evaluated: under Ignore the policy's other validations still run
		// (an expression error skips only that expression, not the policy).
		evaluated bool
	}{
		{
			name: "an expression that errors at run time",
			spec: func() admissionregistrationv1.ValidatingAdmissionPolicySpec {
				return admissionregistrationv1.ValidatingAdmissionPolicySpec{Validations: []admissionregistrationv1.Validation{{Expression: erroring}}}
			},
			message:   fmt.Sprintf("expression '%s' resulted in error: no such key: absent", erroring),
			evaluated: true,
		},
		{
			name: "a paramKind naming no resource",
			spec: func() admissionregistrationv1.ValidatingAdmissionPolicySpec {
				return admissionregistrationv1.ValidatingAdmissionPolicySpec{
					ParamKind:   &admissionregistrationv1.ParamKind{APIVersion: "admission-conformance.io/v1", Kind: "NoSuchKind"},
					Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
				}
			},
			binding: func() admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec {
				return admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ParamRef: &admissionregistrationv1.ParamRef{
					Name: "params", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}}
			},
			message:  "failed to configure policy: failed to find resource referenced by paramKind: 'admission-conformance.io/v1, Kind=NoSuchKind'",
			noBindng: true,
		},
		{
			name: "a missing param with parameterNotFoundAction Deny",
			spec: func() admissionregistrationv1.ValidatingAdmissionPolicySpec {
				return admissionregistrationv1.ValidatingAdmissionPolicySpec{
					ParamKind:   speckit.ParamKindSA,
					Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
				}
			},
			binding: func() admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec {
				return admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ParamRef: &admissionregistrationv1.ParamRef{
					Name: "absent", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}}
			},
			message: "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
		},
	}
	for _, tc := range failureCases {
		ginkgo.It(tc.name+": failurePolicy Fail denies with 422 Invalid", func(ctx ginkgo.SpecContext) {
			s := tc.spec()
			s.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
			b := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{}
			if tc.binding != nil {
				b = tc.binding()
			}
			b.ValidationActions = speckit.DenyAction()
			gomega.Expect(speckit.VAPWith(ctx, f, "fail", s, b)).To(gomega.Succeed())
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "subject", map[string]string{"present": "yes"}), metav1.CreateOptions{})
			want := speckit.VAPDenied(f, "fail", tc.message)
			if tc.noBindng {
				want = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", speckit.PolicyName(f, "fail"), tc.message)
			}
			speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, want)
		})
		ginkgo.It(tc.name+": failurePolicy Ignore ignores the error", func(ctx ginkgo.SpecContext) {
			s := tc.spec()
			s.FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
			// A second validation that fails for one object shows whether the rest of the policy is evaluated.
			s.Validations = append(s.Validations, admissionregistrationv1.Validation{Expression: speckit.RejectsBad, Message: "verdict is bad"})
			b := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{}
			if tc.binding != nil {
				b = tc.binding()
			}
			b.ValidationActions = speckit.DenyAction()
			gomega.Expect(speckit.VAPWith(ctx, f, "ignore", s, b)).To(gomega.Succeed())
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "subject", map[string]string{"present": "yes"}), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "failurePolicy Ignore must admit despite %s", tc.name)
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "bad", "bad"), metav1.CreateOptions{})
			if tc.evaluated {
				speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "ignore", "verdict is bad"))
			} else {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "failurePolicy Ignore must skip the binding it cannot configure (%s)", tc.name)
			}
		})
	}

	ginkgo.It("failurePolicy defaults to Fail", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{Validations: []admissionregistrationv1.Validation{{Expression: erroring}}}
		gomega.Expect(speckit.VAPWith(ctx, f, "default", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		p, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, speckit.PolicyName(f, "default"), metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(p.Spec.FailurePolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.Fail)), "spec.failurePolicy must default to Fail")
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "subject", map[string]string{"present": "yes"}), metav1.CreateOptions{})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "default", fmt.Sprintf("expression '%s' resulted in error: no such key: absent", erroring)))
	})

	ginkgo.It("an expression that errors under a Warn binding warns instead of denying", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations: []admissionregistrationv1.Validation{{Expression: erroring}}}
		gomega.Expect(speckit.VAPWith(ctx, f, "warn", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}})).To(gomega.Succeed())
		client, w := speckit.WarningClient(f)
		_, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "subject", map[string]string{"present": "yes"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "an evaluation error is acted on by the binding's validationActions: Warn must not deny")
		name := speckit.PolicyName(f, "warn")
		gomega.Expect(w.Take()).To(gomega.ConsistOf(fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': expression '%s' resulted in error: no such key: absent",
			name, name, erroring)), "the evaluation error must reach the client as the binding's warning")
	})

	ginkgo.It("refuses expressions that do not compile when the policy is created", func(ctx ginkgo.SpecContext) {
		for field, s := range map[string]admissionregistrationv1.ValidatingAdmissionPolicySpec{
			"spec.validations[0].expression":        {Validations: []admissionregistrationv1.Validation{{Expression: "object.data['x'] =="}}},
			"spec.validations[0].messageExpression": {Validations: []admissionregistrationv1.Validation{{Expression: "true", MessageExpression: "object.nosuchfunction("}}},
			"spec.matchConditions[0].expression": {MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "1 +"}},
				Validations: []admissionregistrationv1.Validation{{Expression: "true"}}},
			"spec.variables[0].expression": {Variables: []admissionregistrationv1.Variable{{Name: "v", Expression: "object.)"}},
				Validations: []admissionregistrationv1.Validation{{Expression: "true"}}},
			"spec.auditAnnotations[0].valueExpression": {AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "'a' +"}}},
			"spec.validations[1].expression":           {Validations: []admissionregistrationv1.Validation{{Expression: "true"}, {Expression: "'not a bool'"}}},
		} {
			detail := "compilation failed"
			if field == "spec.validations[1].expression" {
				detail = "must evaluate to bool"
			}
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "uncompiled")}, Spec: s}
			speckit.ExpectFieldInvalid(speckit.CreateVAP(ctx, f, p), field, detail)
		}
	})
})
