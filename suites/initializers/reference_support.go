package initializers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakeinitializer"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// podsRule matches v1 pods.
func podsRule() v1alpha1.Rule {
	return v1alpha1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}
}

// initializer is one initializer for pods with a policy and timeout.
func initializer(name string, policy v1alpha1.FailurePolicyType, timeoutSeconds int32) v1alpha1.Initializer {
	return v1alpha1.Initializer{Name: name, Rules: []v1alpha1.Rule{podsRule()}, FailurePolicy: ptr.To(policy), TimeoutSeconds: ptr.To(timeoutSeconds)}
}

// configurations reaches the InitializerConfigurations.
func configurations(f *harness.Framework) dynamic.NamespaceableResourceInterface {
	return f.Dynamic.Resource(v1alpha1.GroupVersionResource)
}

// configurationName is <namespace>-<suffix>: configurations are merged by
// name, so suffixes order a spec's configurations.
func configurationName(f *harness.Framework, suffix string) string { return f.Namespace + "-" + suffix }

// newConfiguration is a configuration labelled as the spec's, naming the
// spec's namespace as the one it acts on (the harness's installation of the
// reference initializers applies it there only; see harness.NamespaceLabel).
func newConfiguration(f *harness.Framework, suffix string, inits ...v1alpha1.Initializer) *v1alpha1.InitializerConfiguration {
	labels := f.Labels()
	labels[harness.NamespaceLabel] = f.Namespace
	return &v1alpha1.InitializerConfiguration{
		TypeMeta:     metav1.TypeMeta{APIVersion: v1alpha1.Group + "/" + v1alpha1.Version, Kind: v1alpha1.Kind},
		ObjectMeta:   metav1.ObjectMeta{Name: configurationName(f, suffix), Labels: labels},
		Initializers: inits,
	}
}

func toUnstructured(c *v1alpha1.InitializerConfiguration) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
	return &unstructured.Unstructured{Object: obj}, err
}

func fromUnstructured(u *unstructured.Unstructured) (*v1alpha1.InitializerConfiguration, error) {
	var c v1alpha1.InitializerConfiguration
	err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &c)
	return &c, err
}

// createConfiguration creates c (deleted after the case) and returns it as
// stored.
func createConfiguration(ctx context.Context, f *harness.Framework, c *v1alpha1.InitializerConfiguration, opts metav1.CreateOptions) (*v1alpha1.InitializerConfiguration, error) {
	u, err := toUnstructured(c)
	if err != nil {
		return nil, err
	}
	created, err := configurations(f).Create(ctx, u, opts)
	if err != nil {
		return nil, err
	}
	if len(opts.DryRun) == 0 {
		ginkgo.DeferCleanup(retireConfiguration, f, c)
	}
	return fromUnstructured(created)
}

// updateConfiguration applies change to the stored configuration.
func updateConfiguration(ctx context.Context, f *harness.Framework, name string, change func(*v1alpha1.InitializerConfiguration)) (*v1alpha1.InitializerConfiguration, error) {
	cur, err := configurations(f).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	c, err := fromUnstructured(cur)
	if err != nil {
		return nil, err
	}
	change(c)
	u, err := toUnstructured(c)
	if err != nil {
		return nil, err
	}
	updated, err := configurations(f).Update(ctx, u, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	return fromUnstructured(updated)
}

// retireConfiguration deletes c and waits until new pods no longer get its
// initializers, so that the next case does not see them for the second a
// deletion takes to apply.
func retireConfiguration(ctx context.Context, f *harness.Framework, c *v1alpha1.InitializerConfiguration) error {
	if err := deleteConfiguration(ctx, f, c.Name); err != nil {
		return err
	}
	_, err := enforce.Until(ctx, time.Now(), f.Config, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration,
		func(ctx context.Context, _ *rest.Config) (bool, error) {
			p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				return false, err
			}
			assigned, err := v1alpha1.AssignedTo(p)
			return !slices.ContainsFunc(assigned, func(a v1alpha1.Assigned) bool { return a.Configuration == c.Name }), err
		})
	if err != nil {
		return fmt.Errorf("configuration %s still applies after its deletion: %w", c.Name, err)
	}
	return nil
}

func deleteConfiguration(ctx context.Context, f *harness.Framework, name string) error {
	if err := configurations(f).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// probeAssigned creates a pod as a dry run through the front door and
// returns the names of the initializers assigned to it.
func probeAssigned(ctx context.Context, f *harness.Framework) ([]string, error) {
	p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return nil, err
	}
	return assignedNames(p)
}

// assignedNames lists the initializers assigned to p, in order.
func assignedNames(p *corev1.Pod) ([]string, error) {
	list, err := v1alpha1.AssignedTo(p)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, a := range list {
		out = append(out, a.Name)
	}
	return out, nil
}

// ownAssigned keeps the names of this spec's initializers (those under the
// namespace's domain), so initializers of a configuration some other party
// left in the cluster do not confuse the spec.
func ownAssigned(f *harness.Framework, names []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool {
		return !strings.HasPrefix(n, f.Namespace+".admission-conformance.io/")
	})
}

// assignedProbe is an enforce.Probe that holds once dry-run pods get
// exactly want of the spec's initializers, in any order.
func assignedProbe(f *harness.Framework, want []string) enforce.Probe {
	sorted := slices.Sorted(slices.Values(want))
	return func(ctx context.Context, _ *rest.Config) (bool, error) {
		got, err := probeAssigned(ctx, f)
		if err != nil {
			return false, err
		}
		return slices.Equal(slices.Sorted(slices.Values(ownAssigned(f, got))), sorted), nil
	}
}

// awaitOrder gives a change of order alone, which waitAssigned's set does
// not show, until deadline (the change's time plus the propagation bound,
// when the contract has it in force) to reach new pods. It returns early
// once creations get want in that order; past the deadline the case's own
// check judges the order.
func awaitOrder(ctx context.Context, f *harness.Framework, want []string, deadline time.Time) error {
	for time.Now().Before(deadline) {
		got, err := probeAssigned(ctx, f)
		if err != nil {
			return err
		}
		if slices.Equal(ownAssigned(f, got), want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(f.Bounds.PollInterval.Duration):
		}
	}
	return nil
}

// waitAssigned waits (a set-up wait) until creations get exactly want of
// the spec's initializers. The order is for the case to check.
func waitAssigned(ctx context.Context, f *harness.Framework, want []string) error {
	_, err := enforce.Until(ctx, time.Now(), f.Config, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration, assignedProbe(f, want))
	if err != nil {
		return fmt.Errorf("initializers %v never assigned to new pods: %w", want, err)
	}
	return nil
}

// startFake runs a fake initializer in the spec's namespace until the case
// ends.
func startFake(ctx context.Context, f *harness.Framework, name string, b fakeinitializer.Behaviour) (*fakeinitializer.Controller, error) {
	c, err := fakeinitializer.Start(ctx, f.Config, f.Namespace, name, b)
	if err != nil {
		return nil, err
	}
	ginkgo.DeferCleanup(c.Stop)
	return c, nil
}

// podEvents returns the reasons of the events about pod.
func podEvents(ctx context.Context, f *harness.Framework, pod string) ([]corev1.Event, error) {
	list, err := f.Client.CoreV1().Events(f.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// waitEvent waits for an event about pod with reason.
func waitEvent(ctx context.Context, f *harness.Framework, pod, reason string) (corev1.Event, error) {
	var found corev1.Event
	err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.ObjectState.Duration, true, func(ctx context.Context) (bool, error) {
		events, err := podEvents(ctx, f, pod)
		if err != nil {
			return false, err
		}
		for _, e := range events {
			if e.Reason == reason {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return found, fmt.Errorf("no event with reason %s about pod %s: %w", reason, pod, err)
	}
	return found, nil
}

// stuckIgnoreInitializer configures one Ignore initializer called name with
// timeoutSeconds, waits until new pods get it, and starts a fake that never
// finishes it.
func stuckIgnoreInitializer(ctx context.Context, f *harness.Framework, name string, timeoutSeconds int32) *fakeinitializer.Controller {
	_, err := createConfiguration(ctx, f, newConfiguration(f, "a", initializer(name, v1alpha1.Ignore, timeoutSeconds)), metav1.CreateOptions{})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	gomega.ExpectWithOffset(1, waitAssigned(ctx, f, []string{name})).To(gomega.Succeed())
	fake, err := startFake(ctx, f, name, fakeinitializer.Behaviour{Never: true})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return fake
}

// expectWarningEvent waits for the Warning event with reason about pod that
// the implementation records when it acts on initializer.
func expectWarningEvent(ctx context.Context, f *harness.Framework, pod, reason, initializer string) {
	ev, err := waitEvent(ctx, f, pod, reason)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	gomega.ExpectWithOffset(1, ev.Type).To(gomega.Equal(corev1.EventTypeWarning))
	gomega.ExpectWithOffset(1, ev.Message).To(gomega.ContainSubstring(initializer))
}

// initialized reports whether the implementation considers the pod done.
func initialized(p *corev1.Pod) bool {
	_, ok := p.Labels[v1alpha1.InitializingLabel]
	return !ok
}

// gateGone returns a condition: the gate called name is off the pod.
func gateGone(name string) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return v1alpha1.GateIndex(p, name) < 0 }
}
