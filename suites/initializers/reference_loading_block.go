package initializers

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var initializerLoadingConfigurationBlock = spec.Spec{
	ShortName: "InitializerLoadingConfigurationBlock",
	Suite:     "initializers",
	Description: "When the implementation can no longer read its configurations, pod creations are blocked with reason " +
		"LoadingConfiguration 5 s after the last successful read (within [5 s - 1 s, 5 s + slack] of losing access), " +
		"and unblocked within the propagation bound once access is restored.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Synchronization: if there isn't any successful read in the last 5s, the admission controllers block all " +
		"incoming request",
	Isolation: cutsOffThePoller,
}

var _ = harness.Describe(initializerLoadingConfigurationBlock, func(f *harness.Framework) {
	ginkgo.It("blocks creations 5 s after the last read and unblocks them after access is restored", func(ctx ginkgo.SpecContext) {
		bindings := f.Client.RbacV1().ClusterRoleBindings()
		granted, err := bindings.Get(ctx, v1alpha1.PollerBinding, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the implementation's poller binding %s", v1alpha1.PollerBinding)
		restore := func(ctx context.Context) error {
			b := &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: granted.Name, Labels: granted.Labels, Annotations: granted.Annotations},
				RoleRef:    granted.RoleRef, Subjects: granted.Subjects,
			}
			_, err := bindings.Create(ctx, b, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return nil
			}
			return err
		}
		// Whatever happens below, the implementation gets its access back.
		ginkgo.DeferCleanup(restore)

		propagation, slack := f.Bounds.InitializerConfigPropagation.Duration, f.Bounds.TimingSlack.Duration
		block := f.Bounds.InitializerLoadingBlock.Duration
		cut := time.Now()
		gomega.Expect(bindings.Delete(ctx, granted.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		// The last read that succeeded was at most one read interval before
		// the cut.
		lower, upper := block-propagation, block+slack
		d, err := enforce.Until(ctx, cut, f.Config, upper+f.Bounds.ObjectState.Duration, f.Bounds.PollInterval.Duration, blockedProbe(f, true))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creations never blocked after the implementation lost access to its configurations")
		m := within(f, "initializer-loading-block", d, lower, upper, nil)
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "creations blocked %s after the access was cut, want between %s and %s", d, lower, upper)

		_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "blocked"), metav1.CreateOptions{})
		gomega.Expect(loadingConfiguration(err)).To(gomega.BeTrue(), "a real creation while blocked: want 503 LoadingConfiguration, got %v", err)

		restored := time.Now()
		gomega.Expect(restore(ctx)).To(gomega.Succeed())
		upper = propagation + slack
		d, err = enforce.Until(ctx, restored, f.Config, upper+f.Bounds.ObjectState.Duration, f.Bounds.PollInterval.Duration, blockedProbe(f, false))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creations stayed blocked after the access was restored")
		m = within(f, "initializer-loading-unblock", d, 0, upper, nil)
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "creations unblocked %s after the access was restored, bound %s", d, upper)
	})
})

// blockedProbe holds once a dry-run pod creation is blocked (want true) or
// admitted (want false); any other answer ends the wait.
func blockedProbe(f *harness.Framework, want bool) enforce.Probe {
	return func(ctx context.Context, _ *rest.Config) (bool, error) {
		_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil:
			return !want, nil
		case loadingConfiguration(err):
			return want, nil
		default:
			return false, err
		}
	}
}

// loadingConfiguration reports whether err is the implementation's block.
func loadingConfiguration(err error) bool {
	return apierrors.ReasonForError(err) == v1alpha1.ReasonLoadingConfiguration && apierrors.IsServiceUnavailable(err)
}
