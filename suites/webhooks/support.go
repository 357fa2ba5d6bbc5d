package webhooks

import (
	"context"

	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// probeLabel marks the objects a spec sends to test what a webhook or policy
// does; its value is unique per request so journal entries can be tied to it.
const probeLabel = "admission-conformance.io/probe"

// subject is a ConfigMap the spec creates; name and probe label are unique.
func subject(namespace string) *corev1.ConfigMap {
	name := "subject-" + rand.String(6)
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{probeLabel: name}},
		Data:       map[string]string{"submitted": "by the client"},
	}
}

// selecting is an object selector that matches obj alone.
func selecting(obj metav1.Object) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{probeLabel: obj.GetLabels()[probeLabel]}}
}

// addMutatedKey is the patch the mutating hooks of this suite answer with.
var addMutatedKey = []fakewebhook.PatchOperation{{Op: "add", Path: "/data/mutated", Value: "by the webhook"}}

// callsTo returns the journaled calls of a hook about one object.
func callsTo(f *harness.Framework, hook harness.RegisteredHook, namespace, name string) []fakewebhook.Call {
	return f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
		return c.Path == hook.Path && c.Namespace == namespace && c.Name == name
	})
}

// expectCallFailure asserts the error kube-apiserver returns when calling a
// webhook failed under failurePolicy Fail: HTTP 500 InternalError naming the
// webhook.
func expectCallFailure(err error, webhook string) {
	gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "failurePolicy Fail must reject the request when the call fails")
	gomega.ExpectWithOffset(1, apierrors.IsInternalError(err)).To(gomega.BeTrue(),
		"a failed call under failurePolicy Fail must be HTTP 500 InternalError, got %T: %v", err, err)
	gomega.ExpectWithOffset(1, err.Error()).To(gomega.ContainSubstring(fmt.Sprintf("failed calling webhook %q", webhook)))
}

// dryRunCreate sends a dry-run create of a probe ConfigMap labelled value
// through config, and returns the object as admission left it, or the error.
func dryRunCreate(ctx context.Context, config *rest.Config, namespace, value string) (*corev1.ConfigMap, error) {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-", Labels: map[string]string{probeLabel: value}}}
	return client.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

// dryRunCreateObject sends a dry-run create of cm through config, and
// returns the object as admission left it, or the error.
func dryRunCreateObject(ctx context.Context, config *rest.Config, cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return client.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

// deniedWith reports whether err is an admission denial carrying msg.
func deniedWith(err error, msg string) bool {
	return err != nil && strings.Contains(err.Error(), msg)
}

// timed runs f and returns how long it took on the monotonic clock.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// within records d as a measurement bounded by [lower, upper] and returns it.
func within(f *harness.Framework, name string, d, lower, upper time.Duration, labels map[string]string) results.Measurement {
	lo, up := seconds(lower), seconds(upper)
	m := results.Measurement{Name: name, Value: seconds(d), Unit: "s", Lower: &lo, Bound: &up, Labels: labels}
	f.Record(m)
	return m
}

// request identifies one request a matching spec sends.
type request struct {
	operation, resource, namespace, name, subresource string
}

// reached reports whether hook was called for req.
func reached(f *harness.Framework, hook harness.RegisteredHook, req request) bool {
	return len(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
		return c.Path == hook.Path && c.Operation == req.operation && c.Resource.Resource == req.resource && c.Namespace == req.namespace &&
			c.Name == req.name && c.SubResource == req.subresource
	})) > 0
}

// expectReach asserts, for every hook and request, that the hook was called
// exactly when want says so.
func expectReach(f *harness.Framework, reg *harness.Registration, requests map[string]request, want map[string][]string) {
	for hook, shouldReach := range want {
		registered, ok := reg.Hooks[hook]
		gomega.ExpectWithOffset(1, ok).To(gomega.BeTrue(), "no hook %s", hook)
		for name, req := range requests {
			expected := contains(shouldReach, name)

			gomega.ExpectWithOffset(1, reached(f, registered, req)).To(gomega.Equal(expected),
				"hook %s must %sbe called for %s (%s %s %s/%s %s)", hook, map[bool]string{true: "", false: "not "}[expected],
				name, req.operation, req.resource, req.namespace, req.name, req.subresource)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pendingPod is a pod that never runs (the image is never pulled): specs
// only need it to exist.
func pendingPod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{probeLabel: name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/admission-conformance/never-pulled"}}},
	}
}

func allow() fakewebhook.Behaviour { return fakewebhook.Behaviour{Action: fakewebhook.Allow} }

// refusingAddress returns an address that refuses connections for the rest
// of the case (a webhook there is unreachable), held so that nothing else
// of the run can start listening on it meanwhile.
func refusingAddress() (string, error) {
	addr, release, err := fakewebhook.ReserveUnusedAddress()
	if err != nil {
		return "", err
	}
	ginkgo.DeferCleanup(release)
	return addr, nil
}
