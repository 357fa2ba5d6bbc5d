package matching

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var namespaceSelectorOnNamespaces = spec.Spec{
	ShortName: "NamespaceSelectorOnNamespaces",
	Suite:     "webhooks",
	Description: "For a request about a Namespace itself, a namespaceSelector (of a webhook, and of a policy's matchConstraints) " +
		"is matched against the labels of the namespace in the request: the new object's on CREATE and UPDATE (a label " +
		"added by the update selects it, one removed does not), the stored namespace's on DELETE.",
	Features: []features.Name{features.ValidatingWebhook, features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "002 ExternalAdmissionHook: the webhook cares about an operation only where its rules (and scope) match; " +
		"admissionregistration.k8s.io/v1 ValidatingWebhook.namespaceSelector: if the object itself is a namespace, the matching is performed on object.metadata.labels",
}

// namespaceSteps creates, relabels and deletes two namespaces of the case,
// calling observe after each request with its step name, and returns the
// namespaces' names. "in" is created with the selected label and loses it
// in an update; "out" is created without it and gains it. Each is deleted
// with the labels of its update.
func namespaceSteps(ctx context.Context, f *harness.Framework, client kubernetes.Interface, scope map[string]string, observe func(step string), deleteMatched deleteProbe) map[string]string {
	api := client.CoreV1().Namespaces()
	names := map[string]string{}
	for _, which := range []string{"in", "out"} {
		labels := f.Labels()
		for k, v := range scope {
			labels[k] = v
		}
		if which == "in" {
			labels[namespaceSelected] = "yes"
		}
		ns, err := api.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: f.Namespace + "-" + which + "-", Labels: labels}}, metav1.CreateOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.CoreV1().Namespaces().Delete, ns.Name)
		names[which] = ns.Name
		observe("create-" + which)
	}
	for _, which := range []string{"in", "out"} {
		ns, err := api.Get(ctx, names[which], metav1.GetOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		if which == "in" {
			delete(ns.Labels, namespaceSelected)
		} else {
			ns.Labels[namespaceSelected] = "yes"
		}
		_, err = api.Update(ctx, ns, metav1.UpdateOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		observe("update-" + which)
	}
	// A DELETE of a Namespace is matched by the labels the apiserver's
	// namespace cache holds (k8s.io/apiserver webhook/predicates/namespace,
	// Matcher.GetNamespaceLabels), which follows the updates above with a
	// lag: on kind under load, the deletion of "in" right after its update
	// was still matched by its old labels. So dry-run deletes first wait
	// for the stored labels to decide; a build that never matches by them
	// fails here.
	for _, which := range []string{"in", "out"} {
		gomega.EventuallyWithOffset(1, ctx, func(ctx context.Context) (bool, error) { return deleteMatched(ctx, names[which]) }).
			WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
			Should(gomega.Equal(which == "out"), "dry-run DELETE of namespace %q matched by the labels it is stored with", which)
	}
	for _, which := range []string{"in", "out"} {
		gomega.ExpectWithOffset(1, api.Delete(ctx, names[which], metav1.DeleteOptions{})).To(gomega.Succeed())
		observe("delete-" + which)
	}
	return names
}

// deleteProbe sends a dry-run DELETE of the named namespace and says
// whether the webhook or policy under test matched it.
type deleteProbe func(ctx context.Context, name string) (bool, error)

// dryRunDelete sends a dry-run DELETE of the named namespace through client.
func dryRunDelete(ctx context.Context, client kubernetes.Interface, name string) error {
	return client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
}

// selectedSteps are the requests a namespaceSelector on namespaceSelected
// selects: the creation of "in" (new labels), the update of "out" that adds
// the label (new labels, not the stored ones), and the deletion of "out",
// stored with the label.
var selectedSteps = []string{"create-in", "update-out", "delete-out"}

// allNamespaceSteps are namespaceSteps' requests in the order it makes them.
var allNamespaceSteps = []string{"create-in", "create-out", "update-in", "update-out", "delete-in", "delete-out"}

var _ = harness.Describe(namespaceSelectorOnNamespaces, func(f *harness.Framework) {
	namespaceRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"namespaces"},
			Scope: ptr.To(admissionregistrationv1.ClusterScope)},
	}}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{namespaceSelected: "yes"}}

	ginkgo.It("a webhook is called for a Namespace by the labels of the namespace in the request", func(ctx ginkgo.SpecContext) {
		scope := map[string]string{speckit.ProbeLabel: "nsel-" + f.Namespace}
		reg, err := f.RegisterValidating(ctx, "nsel", harness.Hook{Name: "selected", Behaviour: speckit.Allow(), Rules: namespaceRules,
			NamespaceSelector: selector, ObjectSelector: &metav1.LabelSelector{MatchLabels: scope}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		hook := reg.Hooks["selected"]
		// The request's namespace field is not what this spec is about
		// (kube-apiserver sets it to the name on UPDATE and DELETE of a
		// Namespace, empty on CREATE): calls are told by operation and name,
		// the dry-run deletes apart.
		calls := func(op, name string, dryRun bool) int {
			return len(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
				return c.Path == hook.Path && c.Operation == op && c.Resource.Resource == "namespaces" && c.Name == name && c.SubResource == "" && c.DryRun == dryRun
			}))
		}
		names := namespaceSteps(ctx, f, f.Client, scope, func(string) {}, func(ctx context.Context, name string) (bool, error) {
			before := calls("DELETE", name, true)
			if err := dryRunDelete(ctx, f.Client, name); err != nil {
				return false, err
			}
			return calls("DELETE", name, true) > before, nil
		})
		var got []string
		for _, step := range allNamespaceSteps {
			op, which, _ := strings.Cut(step, "-")
			if calls(strings.ToUpper(op), names[which], false) > 0 {
				got = append(got, step)
			}
		}
		gomega.Expect(got).To(gomega.Equal(selectedSteps), "the webhook must be called exactly for the requests whose namespace in the request carries %s=yes", namespaceSelected)
	})

	ginkgo.It("a policy's matchConstraints select a Namespace by the labels of the namespace in the request", func(ctx ginkgo.SpecContext) {
		scope := map[string]string{speckit.ProbeLabel: "nsel-policy-" + f.Namespace}
		message := "namespace selected " + f.Namespace
		gomega.Expect(speckit.VAPWith(ctx, f, "nsel", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules:     []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: namespaceRules[0]}},
				NamespaceSelector: selector, ObjectSelector: &metav1.LabelSelector{MatchLabels: scope},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: message}},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}}})).To(gomega.Succeed())

		client, warned := speckit.WarningClient(f)
		var got []string
		namespaceSteps(ctx, f, client, scope, func(step string) {
			if warned.TakeMentioning(message) {
				got = append(got, step)
			}
		}, func(ctx context.Context, name string) (bool, error) {
			if err := dryRunDelete(ctx, client, name); err != nil {
				return false, err
			}
			return warned.TakeMentioning(message), nil
		})
		gomega.Expect(got).To(gomega.Equal(selectedSteps), fmt.Sprintf("the policy (warning %q) must apply exactly to the requests whose namespace in the request carries %s=yes", message, namespaceSelected))
	})
})
