package speckit

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// MutatingIndex is the N of the failed-open annotation the mutating
// dispatcher writes for a webhook: its place among all the cluster's
// mutating webhooks, configurations sorted by name, whether they match the
// request or not (validating webhooks count only those that match).
func MutatingIndex(ctx context.Context, f *harness.Framework, config, webhook string) (int, error) {
	list, err := f.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	sort.SliceStable(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	n := 0
	for _, c := range list.Items {
		for _, w := range c.Webhooks {
			if c.Name == config && w.Name == webhook {
				return n, nil
			}
			n++
		}
	}
	return 0, fmt.Errorf("webhook %s is not in the mutating webhook configuration %s", webhook, config)
}

// Register registers hook alone in a configuration of the given phase.
func Register(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase, hook harness.Hook) (*harness.Registration, error) {
	name := fmt.Sprintf("%s-%s", phase, hook.Name)
	if phase == fakewebhook.Mutating {
		return f.RegisterMutating(ctx, name, hook)
	}
	return f.RegisterValidating(ctx, name, hook)
}

func OperationRule(resource string, ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
			Resources: []string{resource}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

func ResourceRule(groups []string, resources ...string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"*"},
			Resources: resources, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

// ProbeLabel marks the objects a spec sends to test what a webhook or policy
// does; its value is unique per request so journal entries can be tied to it.
const ProbeLabel = "admission-conformance.io/probe"

// Subject is a ConfigMap the spec creates; name and probe label are unique.
func Subject(namespace string) *corev1.ConfigMap {
	name := "subject-" + rand.String(6)
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{ProbeLabel: name}},
		Data:       map[string]string{"submitted": "by the client"},
	}
}

// Selecting is an object selector that matches obj alone.
func Selecting(obj metav1.Object) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{ProbeLabel: obj.GetLabels()[ProbeLabel]}}
}

// AddMutatedKey is the patch the mutating hooks of this suite answer with.
var AddMutatedKey = []fakewebhook.PatchOperation{{Op: "add", Path: "/data/mutated", Value: "by the webhook"}}

// CallsTo returns the journaled calls of a hook about one object.
func CallsTo(f *harness.Framework, hook harness.RegisteredHook, namespace, name string) []fakewebhook.Call {
	return f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
		return c.Path == hook.Path && c.Namespace == namespace && c.Name == name
	})
}

// ExpectCallFailure asserts the error kube-apiserver returns when calling a
// webhook failed under failurePolicy Fail: HTTP 500 InternalError naming the
// webhook.
func ExpectCallFailure(err error, webhook string) {
	gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "failurePolicy Fail must reject the request when the call fails")
	gomega.ExpectWithOffset(1, apierrors.IsInternalError(err)).To(gomega.BeTrue(),
		"a failed call under failurePolicy Fail must be HTTP 500 InternalError, got %T: %v", err, err)
	gomega.ExpectWithOffset(1, err.Error()).To(gomega.ContainSubstring(fmt.Sprintf("failed calling webhook %q", webhook)))
}

// DryRunCreate sends a dry-run create of a probe ConfigMap labelled value
// through config, and returns the object as admission left it, or the error.
func DryRunCreate(ctx context.Context, config *rest.Config, namespace, value string) (*corev1.ConfigMap, error) {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Labels: map[string]string{ProbeLabel: value}}}
	return client.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

// DeniedWith reports whether err is an admission denial carrying msg.
func DeniedWith(err error, msg string) bool {
	return err != nil && strings.Contains(err.Error(), msg)
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// Within records d as a measurement bounded by [lower, upper] and returns it.
func Within(f *harness.Framework, name string, d, lower, upper time.Duration, labels map[string]string) results.Measurement {
	lo, up := seconds(lower), seconds(upper)
	m := results.Measurement{Name: name, Value: seconds(d), Unit: "s", Lower: &lo, Bound: &up, Labels: labels}
	f.Record(m)
	return m
}

// Request identifies one request a matching spec sends.
type Request struct {
	Operation, Resource, Namespace, Name, Subresource string
}

// reached reports whether hook was called for req.
func reached(f *harness.Framework, hook harness.RegisteredHook, req Request) bool {
	return len(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
		return c.Path == hook.Path && c.Operation == req.Operation && c.Resource.Resource == req.Resource && c.Namespace == req.Namespace &&
			c.Name == req.Name && c.SubResource == req.Subresource
	})) > 0
}

// ExpectReach asserts, for every hook and request, that the hook was called
// exactly when want says so.
func ExpectReach(f *harness.Framework, reg *harness.Registration, requests map[string]Request, want map[string][]string) {
	for hook, shouldReach := range want {
		registered, ok := reg.Hooks[hook]
		gomega.ExpectWithOffset(1, ok).To(gomega.BeTrue(), "no hook %s", hook)
		for name, req := range requests {
			expected := slices.Contains(shouldReach, name)

			gomega.ExpectWithOffset(1, reached(f, registered, req)).To(gomega.Equal(expected),
				"hook %s must %sbe called for %s (%s %s %s/%s %s)", hook, map[bool]string{true: "", false: "not "}[expected],
				name, req.Operation, req.Resource, req.Namespace, req.Name, req.Subresource)
		}
	}
}

// PendingPod is a pod that never runs (the image is never pulled): specs
// only need it to exist.
func PendingPod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{ProbeLabel: name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/admission-conformance/never-pulled"}}},
	}
}

func Allow() fakewebhook.Behaviour { return fakewebhook.Behaviour{Action: fakewebhook.Allow} }

// RefusingAddress returns an address that refuses connections for the rest
// of the case (a webhook there is unreachable), held so that nothing else
// of the run can start listening on it meanwhile.
func RefusingAddress() (string, error) {
	addr, release, err := fakewebhook.ReserveUnusedAddress()
	if err != nil {
		return "", err
	}
	ginkgo.DeferCleanup(release)
	return addr, nil
}

// ConfigMapRules are webhook rules matching creates of v1 configmaps.
func ConfigMapRules() []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
			Resources: []string{"configmaps"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

// IgnoreNotFound deletes the object called name with del (a DeferCleanup
// target): an object already gone is fine.
func IgnoreNotFound(ctx context.Context, del func(context.Context, string, metav1.DeleteOptions) error, name string) error {
	if err := del(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
