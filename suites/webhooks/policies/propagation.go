package policies

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var validatingPolicyPropagation = spec.Spec{
	ShortName: "ValidatingAdmissionPolicyPropagation",
	Suite:     "webhooks",
	Description: "Binding a ValidatingAdmissionPolicy, changing the policy and deleting the binding are each " +
		"enforced on every apiserver replica within the policy propagation bound.",
	Features:  []features.Name{features.ValidatingAdmissionPolicy},
	Profile:   spec.Core,
	Isolation: speckit.ValidatingPolicyQuiet,
	Seed:      "002 Goals: admin needs to be able to ensure admission config will be applied within some bound",
}

var mutatingPolicyPropagation = spec.Spec{
	ShortName: "MutatingAdmissionPolicyPropagation",
	Suite:     "webhooks",
	Description: "Binding a MutatingAdmissionPolicy, changing the policy and deleting the binding are each " +
		"enforced on every apiserver replica within the policy propagation bound.",
	Features:  []features.Name{features.MutatingAdmissionPolicy},
	Profile:   spec.Extended,
	Isolation: speckit.MutatingPolicyQuiet,
	Seed:      "002 Goals: admin needs to be able to ensure admission config will be applied within some bound",
}

// policyStep is one change to a policy or binding and how to see it enforced.
type policyStep struct {
	change   string
	apply    func(context.Context) error
	enforced enforce.Probe
}

// measurePolicySteps applies each step, waits for it on every replica,
// records the latencies into stats and asserts the bound.
func measurePolicySteps(ctx context.Context, f *harness.Framework, stats *speckit.Latencies, kind string, steps []policyStep) {
	bound := stats.Bound
	for _, step := range steps {
		gomega.Expect(stats.Dephase(ctx, policyRefreshPeriod)).To(gomega.Succeed())
		gomega.Expect(step.apply(ctx)).To(gomega.Succeed(), "%s: %s", kind, step.change)
		applied := time.Now()
		perReplica, err := enforce.OnEveryReplicaSeen(ctx, applied, f.Replicas, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration, step.enforced)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: %s", kind, step.change)
		stats.Add(f, map[string]string{"kind": kind, "change": step.change}, perReplica)
		speckit.ExpectEachWithin(perReplica, bound, kind+": "+step.change)
	}
}

func namespaceOnly(ns string) *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
	}
}

// rejectsLabel is a CEL expression that fails for objects labelled value.
func rejectsLabel(value string) string {
	return fmt.Sprintf("!has(object.metadata.labels) || !(%q in object.metadata.labels) || object.metadata.labels[%q] != %q",
		speckit.ProbeLabel, speckit.ProbeLabel, value)
}

// The two kinds' propagation specs are one table: each case samples its
// kind's bind, change and unbind PropagationSamples times.
var _ = func() bool {
	for _, c := range []struct {
		spec   spec.Spec
		it     string
		sample func(context.Context, *harness.Framework, *speckit.Latencies, string)
	}{
		{validatingPolicyPropagation, "bind, change the expression, unbind: enforced on every replica within the bound", validatingPolicySample},
		{mutatingPolicyPropagation, "bind, change the mutation, unbind: enforced on every replica within the bound", mutatingPolicySample},
	} {
		harness.Describe(c.spec, func(f *harness.Framework) {
			ginkgo.It(c.it, func(ctx ginkgo.SpecContext) {
				stats := speckit.NewLatencies("policy-propagation", f.Bounds.PolicyPropagation.Duration)
				for i := 0; i < speckit.PropagationSamples; i++ {
					c.sample(ctx, f, stats, fmt.Sprintf("%s-propagation-%d", f.Namespace, i))
				}
				stats.Summarize(f)
			})
		})
	}
	return true
}()

func validatingPolicySample(ctx context.Context, f *harness.Framework, stats *speckit.Latencies, name string) {
	ar := f.Client.AdmissionregistrationV1()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: configMapCreates(),
			Validations:      []admissionregistrationv1.Validation{{Expression: rejectsLabel("first"), Message: "policy gate " + name}},
		},
	}
	_, err := ar.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.ValidatingAdmissionPolicies().Delete, name)
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: namespaceOnly(f.Namespace),
		},
	}
	denied := func(label string) enforce.Probe {
		return policyProbe(f, label, func(err error) bool { return speckit.DeniedWith(err, "policy gate "+name) })
	}
	allowed := func(label string) enforce.Probe {
		return policyProbe(f, label, func(err error) bool { return err == nil })
	}
	measurePolicySteps(ctx, f, stats, "ValidatingAdmissionPolicy", []policyStep{
		{"bind", func(ctx context.Context) error {
			_, err := ar.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{})
			if err == nil {
				ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.ValidatingAdmissionPolicyBindings().Delete, name)
			}
			return err
		}, denied("first")},
		{"change expression", func(ctx context.Context) error {
			cur, err := ar.ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Validations[0].Expression = rejectsLabel("second")
			_, err = ar.ValidatingAdmissionPolicies().Update(ctx, cur, metav1.UpdateOptions{})
			return err
		}, denied("second")},
		{"unbind", func(ctx context.Context) error {
			return ar.ValidatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{})
		}, allowed("second")},
	})
}

func mutatingPolicySample(ctx context.Context, f *harness.Framework, stats *speckit.Latencies, name string) {
	policies, bindings := mutatingpolicy.PolicyClient(f.Dynamic), mutatingpolicy.BindingClient(f.Dynamic)
	annotate := func(value string) string {
		return fmt.Sprintf(`Object{metadata: Object.metadata{annotations: {"admission-conformance.io/mutated-by": %q}}}`, value)
	}
	policy := &mutatingpolicy.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
		Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			MatchConstraints:   configMapCreates(),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []mutatingpolicy.Mutation{{
				PatchType:          mutatingpolicy.PatchTypeApplyConfiguration,
				ApplyConfiguration: &mutatingpolicy.ApplyConfiguration{Expression: annotate("first")},
			}},
		},
	}
	_, err := policies.Create(ctx, policy, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(speckit.IgnoreNotFound, policies.Delete, name)
	binding := &mutatingpolicy.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
		Spec:       mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: name, MatchResources: namespaceOnly(f.Namespace)},
	}
	mutatedBy := func(want string) enforce.Probe {
		return func(ctx context.Context, rc *rest.Config) (bool, error) {
			obj, err := speckit.DryRunCreate(ctx, rc, f.Namespace, "probe")
			if err != nil {
				return false, err
			}
			return obj.Annotations["admission-conformance.io/mutated-by"] == want, nil
		}
	}
	measurePolicySteps(ctx, f, stats, "MutatingAdmissionPolicy", []policyStep{
		{"bind", func(ctx context.Context) error {
			_, err := bindings.Create(ctx, binding, metav1.CreateOptions{})
			if err == nil {
				ginkgo.DeferCleanup(speckit.IgnoreNotFound, bindings.Delete, name)
			}
			return err
		}, mutatedBy("first")},
		{"change mutation", func(ctx context.Context) error {
			cur, err := policies.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec.Mutations[0].ApplyConfiguration.Expression = annotate("second")
			_, err = policies.Update(ctx, cur, metav1.UpdateOptions{})
			return err
		}, mutatedBy("second")},
		{"unbind", func(ctx context.Context) error {
			return bindings.Delete(ctx, name, metav1.DeleteOptions{})
		}, mutatedBy("")},
	})
}
