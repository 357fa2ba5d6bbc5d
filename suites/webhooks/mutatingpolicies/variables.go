package mutatingpolicies

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var mutatingPolicyVariables = spec.Spec{
	ShortName: "MutatingPolicyCELVariables",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy's mutation reads, on CREATE and on UPDATE, the request (operation, name, namespace, " +
		"resource, user), object, oldObject (null on CREATE, the stored object on UPDATE), namespaceObject, params, " +
		"variables, and an authorizer that answers for the requesting user, for a named service account and for the request's resource.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.spec.mutations (CEL variables)",
}

// renderVariables writes what each variable held into the object's data,
// one key per variable, so one object shows them all. Each authorizer check
// is a mutation of its own: a check costs a large part of an expression's
// cost limit (k8s.io/apiserver pkg/cel/library/cost.go), three in one
// expression exceed it.
var renderVariables = []string{`Object{data: {
	"operation": request.operation,
	"name": request.name + " " + string(object.metadata.name),
	"namespace": request.namespace + " " + namespaceObject.metadata.name,
	"resource": request.resource.resource + " " + request.kind.kind,
	"user": request.userInfo.username,
	"old": oldObject == null ? "null" : string(oldObject.data["value"]),
	"param": string(params.metadata.annotations["forbidden"]),
	"variable": string(variables.composed)
}}`,
	`Object{data: {"authorized": authorizer.group("").resource("configmaps").namespace(request.namespace).check("get").allowed() ? "yes" : "no"}}`,
	`Object{data: {"nobody": authorizer.serviceAccount(request.namespace, "nobody").group("").resource("configmaps").namespace(request.namespace).check("get").allowed() ? "yes" : "no"}}`,
	`Object{data: {"requestResource": authorizer.requestResource.check(request.operation == "CREATE" ? "create" : "update").allowed() ? "yes" : "no"}}`,
}

var _ = harness.Describe(mutatingPolicyVariables, func(f *harness.Framework) {
	ginkgo.It("on CREATE and on UPDATE every variable holds the request's value", func(ctx ginkgo.SpecContext) {
		_, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, speckit.ParamSA(f.Namespace, "params", "from the param", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     speckit.ParamKindSA,
			Variables:     []admissionregistrationv1.Variable{{Name: "composed", Expression: `object.data["value"] + "-composed"`}},
		}
		for _, e := range renderVariables {
			s.Mutations = append(s.Mutations, speckit.ApplyConfiguration(e))
		}
		gomega.Expect(speckit.MAPWith(ctx, f, "variables", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{ParamRef: &admissionregistrationv1.ParamRef{
			Name: "params", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}})).To(gomega.Succeed())

		user := speckit.WhoAmI(ctx, f.Client).Username
		expected := func(operation, old, value string) map[string]string {
			return map[string]string{
				"value": value, "operation": operation, "name": "subject subject", "namespace": f.Namespace + " " + f.Namespace,
				"resource": "configmaps ConfigMap", "user": user, "old": old, "param": "from the param", "variable": value + "-composed",
				"authorized": "yes", "nobody": "no", "requestResource": "yes",
			}
		}
		api := f.Client.CoreV1().ConfigMaps(f.Namespace)
		created, err := api.Create(ctx, speckit.WithValue(f, "subject", "first"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.Data).To(gomega.Equal(expected("CREATE", "null", "first")), "what each variable held on CREATE")

		created.Data["value"] = "second"
		updated, err := api.Update(ctx, created, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(updated.Data).To(gomega.Equal(expected("UPDATE", "first", "second")), "what each variable held on UPDATE")
	})
})
