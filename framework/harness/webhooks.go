package harness

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
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
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
)

// Hook is one webhook a spec registers, answered by the fake webhook server.
// Zero fields get defaults that keep the hook scoped to the spec: it matches
// only objects in the spec's namespace, and never the marker objects used to
// prove the configuration is enforced.
type Hook struct {
	// Name is short ("m1"); the registered name is Name.<namespace>.admission-conformance.io.
	Name      string
	Behaviour fakewebhook.Behaviour
	// Rules default to CREATE and UPDATE of v1 configmaps.
	Rules []admissionregistrationv1.RuleWithOperations
	// FailurePolicy defaults to Fail, so a broken call is never silent.
	FailurePolicy           admissionregistrationv1.FailurePolicyType
	TimeoutSeconds          *int32
	ReinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
	MatchPolicy             *admissionregistrationv1.MatchPolicyType
	MatchConditions         []admissionregistrationv1.MatchCondition
	SideEffects             *admissionregistrationv1.SideEffectClass
	AdmissionReviewVersions []string
	// ObjectSelector is combined with the exclusion of marker objects when
	// the rules match CREATE (markers are creates; see webhookSpec).
	ObjectSelector *metav1.LabelSelector
	// NamespaceSelector defaults to the spec's namespace.
	NamespaceSelector *metav1.LabelSelector
	// URL and CABundle override where the apiserver calls (for unreachable
	// or untrusted servers); by default the fake server's endpoint.
	URL      string
	CABundle []byte
}

// RegisteredHook says where a registered hook's calls are journaled.
type RegisteredHook struct {
	// FullName is the webhook's name in the configuration.
	FullName string
	// Path is the fake server path whose journal entries are this hook's.
	Path string
}

// Registration is a registered webhook configuration.
type Registration struct {
	// Name is the configuration's name.
	Name  string
	Hooks map[string]RegisteredHook
	// Enforced is how long after creation the configuration was first
	// enforced on the slowest replica (a set-up wait, not the contract).
	Enforced time.Duration
}

// RegisterMutating creates a MutatingWebhookConfiguration called
// <namespace>-<name> holding hooks plus a marker hook, deletes it after the
// case, and returns once every apiserver replica enforces it.
func (f *Framework) RegisterMutating(ctx context.Context, name string, hooks ...Hook) (*Registration, error) {
	return f.register(ctx, fakewebhook.Mutating, name, hooks)
}

// RegisterValidating is RegisterMutating for a ValidatingWebhookConfiguration.
func (f *Framework) RegisterValidating(ctx context.Context, name string, hooks ...Hook) (*Registration, error) {
	return f.register(ctx, fakewebhook.Validating, name, hooks)
}

func (f *Framework) register(ctx context.Context, phase fakewebhook.Phase, name string, hooks []Hook) (*Registration, error) {
	reg := &Registration{Name: f.Namespace + "-" + name, Hooks: map[string]RegisteredHook{}}
	// A mutating and a validating configuration may share a name, so the
	// marker names the phase too: otherwise one configuration's marker hook
	// would answer for the other's, which would look enforced too early.
	markerID := string(phase) + "/" + reg.Name
	marker := Hook{
		Name:           "marker-" + name,
		Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Deny, Code: 403, Message: markerMessage(markerID)},
		FailurePolicy:  admissionregistrationv1.Fail,
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{MarkerLabel: markerValue(markerID)}},
	}
	var specs []webhookSpec
	for i, h := range append(hooks, marker) {
		isMarker := i == len(hooks)
		full := h.Name + "." + f.Namespace + ".admission-conformance.io"
		// The phase is part of the path: a mutating and a validating
		// configuration may share a name.
		path := "/" + f.Namespace + "/" + string(phase) + "/" + reg.Name + "/" + h.Name
		if err := f.Env.Webhooks.Register(fakewebhook.Endpoint{Path: path, Webhook: full, Phase: phase, Behaviour: h.Behaviour}); err != nil {
			return nil, err
		}
		ginkgo.DeferCleanup(f.Env.Webhooks.Unregister, path)
		if !isMarker {
			reg.Hooks[h.Name] = RegisteredHook{FullName: full, Path: path}
		}
		specs = append(specs, f.webhookSpec(h, full, path, isMarker))
	}
	labels := f.Labels()
	ar := f.Client.AdmissionregistrationV1()
	var created time.Time
	switch phase {
	case fakewebhook.Mutating:
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: reg.Name, Labels: labels}}
		for _, s := range specs {
			cfg.Webhooks = append(cfg.Webhooks, s.mutating())
		}
		if _, err := ar.MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create mutating webhook configuration %s: %w", reg.Name, err)
		}
		created = time.Now()
		ginkgo.DeferCleanup(deleteIgnoringNotFound, ar.MutatingWebhookConfigurations().Delete, reg.Name)
	default:
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: reg.Name, Labels: labels}}
		for _, s := range specs {
			cfg.Webhooks = append(cfg.Webhooks, s.validating())
		}
		if _, err := ar.ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create validating webhook configuration %s: %w", reg.Name, err)
		}
		created = time.Now()
		ginkgo.DeferCleanup(deleteIgnoringNotFound, ar.ValidatingWebhookConfigurations().Delete, reg.Name)
	}
	latencies, err := enforce.OnEveryReplica(ctx, created, f.Replicas, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration,
		f.MarkerProbe(markerID))
	if err != nil {
		return nil, fmt.Errorf("webhook configuration %s: %w", reg.Name, err)
	}
	for _, l := range latencies {
		reg.Enforced = max(reg.Enforced, l)
	}
	return reg, nil
}

// Serve registers an endpoint on the fake webhook server for a webhook the
// case configures itself (to create, update and delete the configuration as
// it pleases), removes it after the case, and returns where its calls are
// journaled and the client config that reaches it.
func (f *Framework) Serve(phase fakewebhook.Phase, name string, b fakewebhook.Behaviour) (RegisteredHook, admissionregistrationv1.WebhookClientConfig, error) {
	hook := RegisteredHook{FullName: name + "." + f.Namespace + ".admission-conformance.io", Path: "/" + f.Namespace + "/served/" + name}
	if err := f.Env.Webhooks.Register(fakewebhook.Endpoint{Path: hook.Path, Webhook: hook.FullName, Phase: phase, Behaviour: b}); err != nil {
		return hook, admissionregistrationv1.WebhookClientConfig{}, err
	}
	ginkgo.DeferCleanup(f.Env.Webhooks.Unregister, hook.Path)
	url := f.Env.Webhooks.URL(hook.Path)
	return hook, admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: f.Env.Webhooks.CABundle()}, nil
}

// Labels are the labels every object the harness creates carries.
func (f *Framework) Labels() map[string]string {
	return map[string]string{RunLabel: f.Env.RunID, SpecLabel: f.Spec.ShortName, SuiteLabel: f.Spec.Suite}
}

// markerValue is the marker label value for a configuration (its phase and
// name): a hash, since names may exceed the 63 characters a label value may
// have.
func markerValue(config string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(config))
	return fmt.Sprintf("m-%x", h.Sum64())
}

func markerMessage(config string) string { return "admission-conformance marker for " + config }

// MarkerProbe creates (as a dry run, so nothing is stored) a ConfigMap
// labelled as a marker for the configuration called config, and reports
// whether the configuration's marker hook denied it.
func (f *Framework) MarkerProbe(config string) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return false, err
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			GenerateName: "marker-",
			Labels:       map[string]string{MarkerLabel: markerValue(config)},
		}}
		_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil:
			return false, nil
		case apierrors.IsForbidden(err) && containsMessage(err, markerMessage(config)):
			return true, nil
		default:
			return false, err
		}
	}
}

func containsMessage(err error, msg string) bool {
	status, ok := err.(apierrors.APIStatus)
	return ok && strings.Contains(status.Status().Message, msg)
}

func deleteIgnoringNotFound(ctx context.Context, del func(context.Context, string, metav1.DeleteOptions) error, name string) error {
	if err := del(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// webhookSpec is a Hook with its defaults applied, ready to become either
// kind of webhook.
type webhookSpec struct {
	name                    string
	client                  admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           admissionregistrationv1.FailurePolicyType
	timeoutSeconds          *int32
	reinvocation            *admissionregistrationv1.ReinvocationPolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	matchConditions         []admissionregistrationv1.MatchCondition
	sideEffects             admissionregistrationv1.SideEffectClass
	admissionReviewVersions []string
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
}

func (f *Framework) webhookSpec(h Hook, full, path string, isMarker bool) webhookSpec {
	s := webhookSpec{
		name:                    full,
		rules:                   h.Rules,
		failurePolicy:           h.FailurePolicy,
		timeoutSeconds:          h.TimeoutSeconds,
		reinvocation:            h.ReinvocationPolicy,
		matchPolicy:             h.MatchPolicy,
		matchConditions:         h.MatchConditions,
		sideEffects:             admissionregistrationv1.SideEffectClassNone,
		admissionReviewVersions: h.AdmissionReviewVersions,
		namespaceSelector:       h.NamespaceSelector,
		objectSelector:          h.ObjectSelector.DeepCopy(),
	}
	url, ca := f.Env.Webhooks.URL(path), f.Env.Webhooks.CABundle()
	if h.URL != "" {
		url = h.URL
	}
	if h.CABundle != nil {
		ca = h.CABundle
	}
	s.client = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca}
	if s.rules == nil {
		s.rules = []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
				Resources: []string{"configmaps"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
		}}
	}
	if s.failurePolicy == "" {
		s.failurePolicy = admissionregistrationv1.Fail
	}
	if h.SideEffects != nil {
		s.sideEffects = *h.SideEffects
	}
	if s.admissionReviewVersions == nil {
		s.admissionReviewVersions = []string{"v1"}
	}
	if s.namespaceSelector == nil {
		s.namespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}}
	}
	// Markers are CREATEs, so a hook whose rules never match a CREATE needs
	// no exclusion; and it must not get one: a non-empty objectSelector never
	// matches a CONNECT, whose object (the connect options) has no labels.
	if !isMarker && matchesCreate(s.rules) {
		if s.objectSelector == nil {
			s.objectSelector = &metav1.LabelSelector{}
		}
		s.objectSelector.MatchExpressions = append(s.objectSelector.MatchExpressions,
			metav1.LabelSelectorRequirement{Key: MarkerLabel, Operator: metav1.LabelSelectorOpDoesNotExist})
	}
	return s
}

func (s webhookSpec) mutating() admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: s.name, ClientConfig: s.client, Rules: s.rules, FailurePolicy: &s.failurePolicy,
		MatchPolicy: s.matchPolicy, NamespaceSelector: s.namespaceSelector, ObjectSelector: s.objectSelector,
		SideEffects: &s.sideEffects, TimeoutSeconds: s.timeoutSeconds, AdmissionReviewVersions: s.admissionReviewVersions,
		ReinvocationPolicy: s.reinvocation, MatchConditions: s.matchConditions,
	}
}

func (s webhookSpec) validating() admissionregistrationv1.ValidatingWebhook {
	return admissionregistrationv1.ValidatingWebhook{
		Name: s.name, ClientConfig: s.client, Rules: s.rules, FailurePolicy: &s.failurePolicy,
		MatchPolicy: s.matchPolicy, NamespaceSelector: s.namespaceSelector, ObjectSelector: s.objectSelector,
		SideEffects: &s.sideEffects, TimeoutSeconds: s.timeoutSeconds, AdmissionReviewVersions: s.admissionReviewVersions,
		MatchConditions: s.matchConditions,
	}
}

// matchesCreate reports whether any rule matches CREATE operations.
func matchesCreate(rules []admissionregistrationv1.RuleWithOperations) bool {
	for _, r := range rules {
		for _, op := range r.Operations {
			if op == admissionregistrationv1.Create || op == admissionregistrationv1.OperationAll {
				return true
			}
		}
	}
	return false
}
