package webhooks

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// The policy specs prove their policies enforced with a probe policy of the
// same kind, created after every policy and binding under test: bindings
// (and policies) reach an apiserver through one watch each, in creation
// order, so once the probe policy acts on a replica, the case's policies and
// bindings are in force there too. The probe policy acts only on objects
// labelled policyProbeLabel; every binding under test excludes them.
const policyProbeLabel = "admission-conformance.io/policy-probe"

// policyName is the cluster-wide name of a case's policy or binding.
func policyName(f *harness.Framework, suffix string) string { return f.Namespace + "-" + suffix }

// scoped returns mr (a new one if nil) limited to the spec's namespace,
// unless it names its own namespaceSelector, and never matching probes.
func scoped(f *harness.Framework, mr *admissionregistrationv1.MatchResources) *admissionregistrationv1.MatchResources {
	if mr == nil {
		mr = &admissionregistrationv1.MatchResources{}
	}
	if mr.NamespaceSelector == nil {
		mr.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}}
	}
	if mr.ObjectSelector == nil {
		mr.ObjectSelector = &metav1.LabelSelector{}
	}
	mr.ObjectSelector.MatchExpressions = append(mr.ObjectSelector.MatchExpressions,
		metav1.LabelSelectorRequirement{Key: policyProbeLabel, Operator: metav1.LabelSelectorOpDoesNotExist})
	return mr
}

// scopedConstraints are a policy's matchConstraints: by default
// policyConfigMapRules, and unless the case chose its own selectors, only
// the spec's namespace and never probes. A policy that cannot be configured
// denies every request its matchConstraints match, whatever its bindings.
func scopedConstraints(f *harness.Framework, mr *admissionregistrationv1.MatchResources) *admissionregistrationv1.MatchResources {
	if mr == nil {
		mr = policyConfigMapRules()
	}
	if mr.NamespaceSelector == nil && mr.ObjectSelector == nil {
		return scoped(f, mr)
	}
	return mr
}

// probeConstraints match the probe objects alone.
func probeConstraints(f *harness.Framework) *admissionregistrationv1.MatchResources {
	mr := probeOnly(f)
	mr.ResourceRules = policyConfigMapRules().ResourceRules
	return mr
}

// configMapRules matches creates and updates of v1 configmaps.
func policyConfigMapRules() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
		},
	}}}
}

// createVAP creates policy p (MatchConstraints default to configMapRules)
// and deletes it after the case.
func createVAP(ctx context.Context, f *harness.Framework, p *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	p.Labels = f.Labels()
	p.Spec.MatchConstraints = scopedConstraints(f, p.Spec.MatchConstraints)
	api := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	if _, err := api.Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ValidatingAdmissionPolicy %s: %w", p.Name, err)
	}
	ginkgo.DeferCleanup(ignoreNotFound, api.Delete, p.Name)
	return nil
}

// bindVAP creates binding b, scoped to the spec's namespace, deleted after the case.
func bindVAP(ctx context.Context, f *harness.Framework, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) error {
	b.Labels = f.Labels()
	b.Spec.MatchResources = scoped(f, b.Spec.MatchResources)
	api := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	if _, err := api.Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ValidatingAdmissionPolicyBinding %s: %w", b.Name, err)
	}
	ginkgo.DeferCleanup(ignoreNotFound, api.Delete, b.Name)
	return nil
}

// vapWith creates a policy named suffix with spec and one binding of the
// same name with actions, and waits until it is enforced.
func vapWith(ctx context.Context, f *harness.Framework, suffix string, spec admissionregistrationv1.ValidatingAdmissionPolicySpec,
	binding admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) error {
	if err := vapAndBinding(ctx, f, suffix, spec, binding); err != nil {
		return err
	}
	if binding.ParamRef != nil && spec.ParamKind != nil && spec.ParamKind.Kind == "ServiceAccount" {
		return awaitVAPsWithParams(ctx, f)
	}
	return awaitVAPs(ctx, f)
}

// vapAndBinding creates a policy named suffix with spec and one binding of
// the same name, without waiting: a case making several policies waits once
// (awaitVAPs) after the last.
func vapAndBinding(ctx context.Context, f *harness.Framework, suffix string, spec admissionregistrationv1.ValidatingAdmissionPolicySpec,
	binding admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) error {
	name := policyName(f, suffix)
	if err := createVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}); err != nil {
		return err
	}
	binding.PolicyName = name
	return bindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: binding})
}

func probeMessage(f *harness.Framework) string { return "policy probe of " + f.Namespace }

// awaitVAPs creates the probe policy and binding and returns once every
// replica denies a dry-run probe with it.
func awaitVAPs(ctx context.Context, f *harness.Framework) error {
	return awaitVAPsWith(ctx, f, false)
}

// awaitVAPsWithParams is awaitVAPs for policies whose params are
// ServiceAccounts: the probe policy takes a ServiceAccount param too,
// created after the case's params, so once the probe sees its param every
// replica's param cache holds the case's params as well.
func awaitVAPsWithParams(ctx context.Context, f *harness.Framework) error {
	return awaitVAPsWith(ctx, f, true)
}

func awaitVAPsWith(ctx context.Context, f *harness.Framework, withParam bool) error {
	name := policyName(f, "probe")
	probe := admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: probeConstraints(f),
		FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
		Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: probeMessage(f)}},
	}
	var ref *admissionregistrationv1.ParamRef
	if withParam {
		param := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "policy-probe-param", Annotations: map[string]string{"message": probeMessage(f)}}}
		if _, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, param, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create probe param: %w", err)
		}
		probe.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ServiceAccount"}
		probe.Validations[0] = admissionregistrationv1.Validation{Expression: "false", MessageExpression: "string(params.metadata.annotations['message'])"}
		ref = &admissionregistrationv1.ParamRef{Name: param.Name, ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)}
	}
	if err := createVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: probe}); err != nil {
		return err
	}
	api := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: probeOnly(f), ParamRef: ref,
		},
	}
	if _, err := api.Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create probe binding: %w", err)
	}
	ginkgo.DeferCleanup(ignoreNotFound, api.Delete, name)
	return awaitProbe(ctx, f, func(_ *corev1.ConfigMap, err error) bool { return deniedWith(err, probeMessage(f)) })
}

func probeOnly(f *harness.Framework) *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}},
		ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{policyProbeLabel: f.Namespace}},
	}
}

// awaitProbe sends dry-run probes to every replica until enforced accepts
// the answer, within the policy propagation bound.
func awaitProbe(ctx context.Context, f *harness.Framework, enforced func(*corev1.ConfigMap, error) bool) error {
	var last sync.Map // replica host -> last answer
	_, err := enforce.OnEveryReplica(ctx, time.Now(), f.Replicas, f.Bounds.PolicyPropagation.Duration, f.Bounds.PollInterval.Duration,
		func(ctx context.Context, rc *rest.Config) (bool, error) {
			client, err := kubernetes.NewForConfig(rc)
			if err != nil {
				return false, err
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "policy-probe-", Labels: map[string]string{policyProbeLabel: f.Namespace}}}
			obj, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil && !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) {
				return false, err
			}
			last.Store(rc.Host, fmt.Sprintf("error %v, object %v", err, obj))
			return enforced(obj, err), nil
		})
	if err != nil {
		var answers []string
		last.Range(func(k, v any) bool { answers = append(answers, fmt.Sprintf("%v: %v", k, v)); return true })
		return fmt.Errorf("policies of %s not enforced: %w (last probe answers: %s)", f.Namespace, err, strings.Join(answers, "; "))
	}
	return nil
}
