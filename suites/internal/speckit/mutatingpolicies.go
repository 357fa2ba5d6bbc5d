package speckit

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
)

// probeSeen is the annotation the probe MutatingAdmissionPolicy sets on
// probe objects.
const probeSeen = "admission-conformance.io/policy-probe-seen"

// MAPWith creates a MutatingAdmissionPolicy named suffix with spec
// (MatchConstraints scoped like createVAP's) and one binding of the same
// name, and waits until it is enforced (see AwaitMAPs).
func MAPWith(ctx context.Context, f *harness.Framework, suffix string, spec mutatingpolicy.MutatingAdmissionPolicySpec,
	binding mutatingpolicy.MutatingAdmissionPolicyBindingSpec) error {
	if err := MAPAndBinding(ctx, f, suffix, spec, binding); err != nil {
		return err
	}
	return AwaitMAPs(ctx, f, binding.ParamRef != nil && spec.ParamKind != nil && spec.ParamKind.Kind == "ServiceAccount")
}

// MAPAndBinding creates a policy named suffix with spec and one binding of
// the same name, without waiting: a case making several policies waits once
// (awaitMAPs).
func MAPAndBinding(ctx context.Context, f *harness.Framework, suffix string, spec mutatingpolicy.MutatingAdmissionPolicySpec,
	binding mutatingpolicy.MutatingAdmissionPolicyBindingSpec) error {
	name := PolicyName(f, suffix)
	if err := CreateMAP(ctx, f, name, spec); err != nil {
		return err
	}
	binding.PolicyName = name
	binding.MatchResources = Scoped(f, binding.MatchResources)
	api := mutatingpolicy.BindingClient(f.Dynamic)
	b := &mutatingpolicy.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()}, Spec: binding}
	if _, err := api.Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create MutatingAdmissionPolicyBinding %s: %w", name, err)
	}
	ginkgo.DeferCleanup(IgnoreNotFound, api.Delete, name)
	return nil
}

func CreateMAP(ctx context.Context, f *harness.Framework, name string, spec mutatingpolicy.MutatingAdmissionPolicySpec) error {
	spec.MatchConstraints = ScopedConstraints(f, spec.MatchConstraints)
	if spec.ReinvocationPolicy == "" {
		spec.ReinvocationPolicy = admissionregistrationv1.NeverReinvocationPolicy
	}
	api := mutatingpolicy.PolicyClient(f.Dynamic)
	p := &mutatingpolicy.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()}, Spec: spec}
	if _, err := api.Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create MutatingAdmissionPolicy %s: %w", name, err)
	}
	ginkgo.DeferCleanup(IgnoreNotFound, api.Delete, name)
	return nil
}

// AwaitMAPs creates a probe MutatingAdmissionPolicy and binding after the
// case's (see the note on PolicyProbeLabel) and returns once every replica
// mutates a dry-run probe with it. withParam gives the probe a
// ServiceAccount param created after the case's params.
func AwaitMAPs(ctx context.Context, f *harness.Framework, withParam bool) error {
	name := PolicyName(f, "probe")
	value := "'seen'"
	spec := mutatingpolicy.MutatingAdmissionPolicySpec{
		MatchConstraints: probeConstraints(f), FailurePolicy: ptr.To(admissionregistrationv1.Fail),
		ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
	}
	var ref *admissionregistrationv1.ParamRef
	if withParam {
		param := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "policy-probe-param", Annotations: map[string]string{"seen": "seen"}}}
		if _, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, param, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create probe param: %w", err)
		}
		spec.ParamKind = ParamKindSA
		ref = &admissionregistrationv1.ParamRef{Name: param.Name, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}
		value = "string(params.metadata.annotations['seen'])"
	}
	spec.Mutations = []mutatingpolicy.Mutation{{
		PatchType: mutatingpolicy.PatchTypeApplyConfiguration,
		ApplyConfiguration: &mutatingpolicy.ApplyConfiguration{
			Expression: fmt.Sprintf("Object{metadata: Object.metadata{annotations: {%q: %s}}}", probeSeen, value),
		},
	}}
	api := mutatingpolicy.PolicyClient(f.Dynamic)
	p := &mutatingpolicy.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()}, Spec: spec}
	if _, err := api.Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create probe MutatingAdmissionPolicy: %w", err)
	}
	ginkgo.DeferCleanup(IgnoreNotFound, api.Delete, name)
	bindings := mutatingpolicy.BindingClient(f.Dynamic)
	b := &mutatingpolicy.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
		Spec: mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: name, ParamRef: ref, MatchResources: probeOnly(f)}}
	if _, err := bindings.Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create probe MutatingAdmissionPolicyBinding: %w", err)
	}
	ginkgo.DeferCleanup(IgnoreNotFound, bindings.Delete, name)
	return awaitProbe(ctx, f, func(obj *corev1.ConfigMap, err error) bool {
		return err == nil && obj.Annotations[probeSeen] == "seen"
	})
}

func ApplyConfiguration(expression string) mutatingpolicy.Mutation {
	return mutatingpolicy.Mutation{PatchType: mutatingpolicy.PatchTypeApplyConfiguration,
		ApplyConfiguration: &mutatingpolicy.ApplyConfiguration{Expression: expression}}
}

func JSONPatch(expression string) mutatingpolicy.Mutation {
	return mutatingpolicy.Mutation{PatchType: mutatingpolicy.PatchTypeJSONPatch,
		JSONPatch: &mutatingpolicy.JSONPatch{Expression: expression}}
}
