package policies

import (
	"errors"
	"net/http"
	"strings"

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

var generateNameDenialDetails = spec.Spec{
	ShortName: "GenerateNameDenialDetails",
	Suite:     "webhooks",
	Description: "A policy denial of a create with only generateName names the object in the Status details: in the mutating " +
		"phase (a MutatingAdmissionPolicy whose mutation errors under failurePolicy Fail), where no name is generated yet, " +
		"details.name is the generateName; in the validating phase (a ValidatingAdmissionPolicy denial) it is the generated " +
		"name; details.kind is the resource; nothing is stored.",
	Features: []features.Name{features.MutatingAdmissionPolicy, features.ValidatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed: "meta/v1 Status.details (\"name: the name attribute of the resource associated with the status StatusReason (when " +
		"there is a single name which can be described)\", kind); ObjectMeta.generateName (the name is generated at create); " +
		"k8s.io/apiserver v0.37.2 pkg/admission/errors.go NewForbidden",
}

var _ = harness.Describe(generateNameDenialDetails, func(f *harness.Framework) {
	generated := func(ctx ginkgo.SpecContext) error {
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-", Namespace: f.Namespace}, Data: map[string]string{"k": "v"}},
			metav1.CreateOptions{})
		return err
	}
	details := func(err error, code int32, reason metav1.StatusReason, message string) *metav1.StatusDetails {
		gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "the policy must deny the create")
		var status apierrors.APIStatus
		gomega.ExpectWithOffset(1, errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T: %v", err, err)
		s := status.Status()
		gomega.ExpectWithOffset(1, s.Code).To(gomega.Equal(code), "the denial's code: %v", err)
		gomega.ExpectWithOffset(1, s.Reason).To(gomega.Equal(reason), "the denial's reason: %v", err)
		gomega.ExpectWithOffset(1, s.Message).To(gomega.ContainSubstring(message))
		gomega.ExpectWithOffset(1, s.Details).NotTo(gomega.BeNil(), "the denial's Status names the object in details")
		gomega.ExpectWithOffset(1, s.Details.Kind).To(gomega.Equal("configmaps"), "details.kind is the resource")
		gomega.ExpectWithOffset(1, s.Details.Group).To(gomega.BeEmpty(), "details.group is the resource's (core) group")
		return s.Details
	}
	expectNoneStored := func(ctx ginkgo.SpecContext) {
		list, err := f.Client.CoreV1().ConfigMaps(f.Namespace).List(ctx, metav1.ListOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		for _, cm := range list.Items {
			gomega.ExpectWithOffset(1, cm.GenerateName).NotTo(gomega.Equal("gen-"), "a denied create must not be stored (found %s)", cm.Name)
		}
	}

	ginkgo.It("mutating phase: a MutatingAdmissionPolicy's erroring mutation (Fail) names the generateName in details.name", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.MAPWith(ctx, f, "gen", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Mutations:     []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{data: {"copy": object.data["absent"]}}`)},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		name := speckit.PolicyName(f, "gen")
		d := details(generated(ctx), http.StatusForbidden, metav1.StatusReasonInvalid,
			"policy '"+name+"' with binding '"+name+"' denied request: ")
		gomega.Expect(d.Name).To(gomega.Equal("gen-"), "in the mutating phase no name is generated yet: details.name is the generateName")
		expectNoneStored(ctx)
	})

	ginkgo.It("validating phase: a ValidatingAdmissionPolicy denial names the generated name in details.name", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "gen", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations:   []admissionregistrationv1.Validation{{Expression: "false", Message: "generated names are denied"}},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		d := details(generated(ctx), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "gen", "generated names are denied"))
		gomega.Expect(strings.HasPrefix(d.Name, "gen-") && len(d.Name) > len("gen-")).To(gomega.BeTrue(),
			"in the validating phase the name is generated: details.name is gen- and a suffix, got %q", d.Name)
		expectNoneStored(ctx)
	})
})
