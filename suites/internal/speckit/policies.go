package speckit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/identity"
)

// IdentityOf is a registered identity; the names are constants of
// framework/identity, so a miss is a bug found when the binary starts.
func IdentityOf(name identity.Name) identity.Identity {
	id, err := identity.Lookup(name)
	if err != nil {
		panic(err)
	}
	return id
}

// Warnings collects the warning headers of the requests of one client.
type Warnings struct {
	sync.Mutex
	Texts []string
}

func (w *Warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.Lock()
	defer w.Unlock()
	w.Texts = append(w.Texts, text)
}

// Take returns the warnings collected so far and forgets them.
func (w *Warnings) Take() []string {
	w.Lock()
	defer w.Unlock()
	out := w.Texts
	w.Texts = nil
	return out
}

// TakeMentioning reports whether a warning collected since the last Take
// contains text, and forgets them all.
func (w *Warnings) TakeMentioning(text string) bool {
	return slices.ContainsFunc(w.Take(), func(warning string) bool { return strings.Contains(warning, text) })
}

// WarningClient is a client whose warnings are collected, not logged.
func WarningClient(f *harness.Framework) (kubernetes.Interface, *Warnings) {
	w := &Warnings{}
	rc := rest.CopyConfig(f.Config)
	rc.WarningHandler = w
	client, err := kubernetes.NewForConfig(rc)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return client, w
}

// ConfigMap is an object in the spec's namespace with the given data.
func ConfigMap(f *harness.Framework, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace}, Data: data}
}

// ExpectPolicyDenial asserts err is the denial of a policy: its HTTP code,
// reason and exact message.
func ExpectPolicyDenial(err error, code int32, reason metav1.StatusReason, message string) {
	s := ExpectDenialStatus(err, code, reason, message)
	gomega.ExpectWithOffset(1, strings.HasSuffix(s.Message, message)).To(gomega.BeTrue(),
		"the denial's message must end with %q, got %q", message, s.Message)
}

// ExpectDenialStatus asserts err is a Status with code and reason (offset
// 2: its callers' callers are the specs) and returns it; what names the
// denial is for its caller to check.
func ExpectDenialStatus(err error, code int32, reason metav1.StatusReason, what string) metav1.Status {
	gomega.ExpectWithOffset(2, err).To(gomega.HaveOccurred(), "the policy must deny the request (%s)", what)
	var status apierrors.APIStatus
	gomega.ExpectWithOffset(2, errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T: %v", err, err)
	s := status.Status()
	gomega.ExpectWithOffset(2, s.Code).To(gomega.Equal(code), "the denial's HTTP code (reason %s, message %q)", s.Reason, s.Message)
	gomega.ExpectWithOffset(2, s.Reason).To(gomega.Equal(reason), "the denial's reason (message %q)", s.Message)
	return s
}

// VAPDenied is the message of a ValidatingAdmissionPolicy denial.
func VAPDenied(f *harness.Framework, suffix, message string) string {
	return fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", PolicyName(f, suffix), PolicyName(f, suffix), message)
}

func DenyAction() []admissionregistrationv1.ValidationAction {
	return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
}

// ExpectFieldInvalid asserts err is a 422 Invalid naming field with detail.
func ExpectFieldInvalid(err error, field, detail string) {
	gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "the apiserver must refuse the object (%s: %s)", field, detail)
	gomega.ExpectWithOffset(1, apierrors.IsInvalid(err)).To(gomega.BeTrue(), "refusal must be 422 Invalid, got %v", err)
	var causes []string
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		for _, c := range status.Status().Details.Causes {
			causes = append(causes, c.Field+": "+c.Message)
		}
	}
	gomega.ExpectWithOffset(1, causes).To(gomega.ContainElement(gomega.And(gomega.HavePrefix(field+": "), gomega.ContainSubstring(detail))),
		"the refusal must name field %s (%s)", field, detail)
}

// AlwaysDenies is a policy spec that denies whatever it applies to.
func AlwaysDenies(mr *admissionregistrationv1.MatchResources) admissionregistrationv1.ValidatingAdmissionPolicySpec {
	return admissionregistrationv1.ValidatingAdmissionPolicySpec{
		FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
		MatchConstraints: mr,
		Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: "matched"}},
	}
}

func Rule(group, resource string, ops ...admissionregistrationv1.OperationType) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource}},
	}}
}

// Params are ServiceAccounts (their annotations carry the values): upstream
// stops a built-in kind's shared param informer for good once the last
// policy using that kind is gone, so only kinds whose informers the
// apiserver runs for itself (ServiceAccounts, Namespaces) keep working
// across cases.
var ParamKindSA = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ServiceAccount"}

func ParamSA(namespace, name, forbidden string, labels map[string]string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels,
		Annotations: map[string]string{"forbidden": forbidden}}}
}

func WithValue(f *harness.Framework, name, value string) *corev1.ConfigMap {
	return ConfigMap(f, name, map[string]string{"value": value})
}

// The one policy-enforcement probe of every suite: a case proves its
// policies enforced with a probe policy of the same kind, created after every
// policy and binding under test: bindings (and policies) reach an apiserver
// through one watch each, in creation order, so once the probe policy acts on
// a replica, the case's policies and bindings are in force there too. Every
// replica must act within the policy propagation bound (PolicyPropagation, a
// contract bound), and the policies under test stay as the case wrote them:
// the probe policy acts only on objects labelled PolicyProbeLabel, and every
// binding under test excludes them.
const PolicyProbeLabel = "admission-conformance.io/policy-probe"

// PolicyName is the cluster-wide name of a case's policy or binding.
func PolicyName(f *harness.Framework, suffix string) string { return f.Namespace + "-" + suffix }

// Scoped returns mr (a new one if nil) limited to the spec's namespace,
// unless it names its own namespaceSelector, and never matching probes.
func Scoped(f *harness.Framework, mr *admissionregistrationv1.MatchResources) *admissionregistrationv1.MatchResources {
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
		metav1.LabelSelectorRequirement{Key: PolicyProbeLabel, Operator: metav1.LabelSelectorOpDoesNotExist})
	return mr
}

// ScopedConstraints are a policy's matchConstraints: by default
// PolicyConfigMapRules, and unless the case chose its own selectors, only
// the spec's namespace and never probes. A policy that cannot be configured
// denies every request its matchConstraints match, whatever its bindings.
func ScopedConstraints(f *harness.Framework, mr *admissionregistrationv1.MatchResources) *admissionregistrationv1.MatchResources {
	if mr == nil {
		mr = PolicyConfigMapRules()
	}
	if mr.NamespaceSelector == nil && mr.ObjectSelector == nil {
		return Scoped(f, mr)
	}
	return mr
}

// probeConstraints match the probe objects alone.
func probeConstraints(f *harness.Framework) *admissionregistrationv1.MatchResources {
	mr := probeOnly(f)
	mr.ResourceRules = PolicyConfigMapRules().ResourceRules
	return mr
}

// ConfigMapRules matches creates and updates of v1 configmaps.
func PolicyConfigMapRules() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
		},
	}}}
}

// CreateVAP creates policy p (MatchConstraints default to ConfigMapRules)
// and deletes it after the case.
func CreateVAP(ctx context.Context, f *harness.Framework, p *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	p.Labels = f.Labels()
	p.Spec.MatchConstraints = ScopedConstraints(f, p.Spec.MatchConstraints)
	api := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	if _, err := api.Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ValidatingAdmissionPolicy %s: %w", p.Name, err)
	}
	ginkgo.DeferCleanup(IgnoreNotFound, api.Delete, p.Name)
	return nil
}

// BindVAP creates binding b, scoped to the spec's namespace, deleted after the case.
func BindVAP(ctx context.Context, f *harness.Framework, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) error {
	b.Labels = f.Labels()
	b.Spec.MatchResources = Scoped(f, b.Spec.MatchResources)
	api := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
	if _, err := api.Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ValidatingAdmissionPolicyBinding %s: %w", b.Name, err)
	}
	ginkgo.DeferCleanup(IgnoreNotFound, api.Delete, b.Name)
	return nil
}

// VAPWith creates a policy named suffix with spec and one binding of the
// same name with actions, and waits until it is enforced.
func VAPWith(ctx context.Context, f *harness.Framework, suffix string, spec admissionregistrationv1.ValidatingAdmissionPolicySpec,
	binding admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) error {
	if err := VAPAndBinding(ctx, f, suffix, spec, binding); err != nil {
		return err
	}
	if binding.ParamRef != nil && spec.ParamKind != nil && spec.ParamKind.Kind == "ServiceAccount" {
		return AwaitVAPsWithParams(ctx, f)
	}
	return AwaitVAPs(ctx, f)
}

// VAPAndBinding creates a policy named suffix with spec and one binding of
// the same name, without waiting: a case making several policies waits once
// (awaitVAPs) after the last.
func VAPAndBinding(ctx context.Context, f *harness.Framework, suffix string, spec admissionregistrationv1.ValidatingAdmissionPolicySpec,
	binding admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) error {
	name := PolicyName(f, suffix)
	if err := CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}); err != nil {
		return err
	}
	binding.PolicyName = name
	return BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: binding})
}

func probeMessage(f *harness.Framework) string { return "policy probe of " + f.Namespace }

// AwaitVAPs creates the probe policy and binding and returns once every
// replica denies a dry-run probe with it.
func AwaitVAPs(ctx context.Context, f *harness.Framework) error {
	return awaitVAPsWith(ctx, f, false)
}

// AwaitVAPsWithParams is AwaitVAPs for policies whose params are
// ServiceAccounts: the probe policy takes a ServiceAccount param too,
// created after the case's params, so once the probe sees its param every
// replica's param cache holds the case's params as well.
func AwaitVAPsWithParams(ctx context.Context, f *harness.Framework) error {
	return awaitVAPsWith(ctx, f, true)
}

func awaitVAPsWith(ctx context.Context, f *harness.Framework, withParam bool) error {
	name := PolicyName(f, "probe")
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
	if err := CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: probe}); err != nil {
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
	ginkgo.DeferCleanup(IgnoreNotFound, api.Delete, name)
	return awaitProbe(ctx, f, func(_ *corev1.ConfigMap, err error) bool { return DeniedWith(err, probeMessage(f)) })
}

func probeOnly(f *harness.Framework) *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}},
		ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{PolicyProbeLabel: f.Namespace}},
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
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "policy-probe-", Labels: map[string]string{PolicyProbeLabel: f.Namespace}}}
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

// RejectsBad fails for configmaps whose data.verdict is "bad".
const RejectsBad = "!has(object.data) || !('verdict' in object.data) || object.data['verdict'] != 'bad'"

func Verdict(f *harness.Framework, name, v string) *corev1.ConfigMap {
	return ConfigMap(f, name, map[string]string{"verdict": v})
}
