package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Framework is what one spec case works with. Its fields are filled before
// each case runs, so a body reads them inside It, never at declaration.
type Framework struct {
	Spec spec.Spec
	Env  *Env
	// Bounds is this case's copy of the run's bounds.
	Bounds bounds.Bounds
	// Namespace is created for this case alone and deleted after it.
	Namespace string
	Config    *rest.Config
	Client    kubernetes.Interface
	Dynamic   dynamic.Interface
	// Replicas reach each apiserver replica directly.
	Replicas []*rest.Config
}

// Describe registers s and declares its Ginkgo container. Every case in it
// first checks that the cluster supports the spec's features (reporting it
// not-supported if not) and gets its own namespace.
func Describe(s spec.Spec, body func(f *Framework)) bool {
	s = spec.Register(s)
	return ginkgo.Describe(s.ShortName, ginkgo.Label(s.Labels()...), func() {
		f := &Framework{Spec: s}
		ginkgo.BeforeEach(func(ctx ginkgo.SpecContext) {
			if err := f.setUp(ctx); err != nil {
				ginkgo.Fail(err.Error())
			}
		})
		body(f)
	})
}

func (f *Framework) setUp(ctx context.Context) error {
	env, err := Current()
	if err != nil {
		return err
	}
	if usesFakeWebhooks(f.Spec) && !env.Supported.Has(features.HostWebhooksReachable) {
		ginkgo.Skip(results.NotSupportedPrefix + "the cluster's apiservers cannot reach the harness's fake webhook server")
	}
	if missing := env.Supported.Missing(f.Spec.Features); len(missing) > 0 {
		why := "the cluster does not declare them; claim them with --supported-features"
		var reasons []string
		for _, m := range missing {
			if r := env.notDeclaredReason(m); r != "" {
				reasons = append(reasons, string(m)+": "+r)
			}
		}
		if len(reasons) == len(missing) {
			why = strings.Join(reasons, "; ")
		}
		ginkgo.Skip(results.NotSupportedPrefix + "needs features " + joinNames(missing) + " (" + why + ")")
	}
	if err := env.deadNodes(f.Spec); err != nil {
		return err
	}
	if err := env.skipWithoutRights(ctx, f.Spec); err != nil {
		return err
	}
	f.Env, f.Bounds = env, env.Bounds
	if err := f.holdQuiet(ctx); err != nil {
		return err
	}
	f.Config, f.Replicas = recordFields(env)
	if f.Client, err = kubernetes.NewForConfig(f.Config); err != nil {
		return err
	}
	if f.Dynamic, err = dynamic.NewForConfig(f.Config); err != nil {
		return err
	}
	ns, err := f.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: namespacePrefix(f.Spec.ShortName),
		Labels:       map[string]string{RunLabel: env.RunID, SpecLabel: f.Spec.ShortName, SuiteLabel: f.Spec.Suite},
	}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create the spec's namespace: %w", err)
	}
	f.Namespace = ns.Name
	cleanUp := deleteNamespace
	if cluster.IsDisposable(env.Cluster) {
		cleanUp = releaseNamespace
	}
	ginkgo.DeferCleanup(func(ctx context.Context) error { return cleanUp(ctx, f.Client, ns.Name) })
	if env.Supported.Has(features.ControllerManager) {
		return f.waitForControllerObjects(ctx)
	}
	// No controller manager makes the default ServiceAccount, without which
	// the ServiceAccount admission plugin refuses pods.
	return f.ensureDefaultServiceAccount(ctx)
}

// holdQuiet takes the quiet window the spec declares for the whole case;
// the release is registered before the case's own cleanups, so it comes
// after they have deleted what the case made. It then waits until twice
// the kind's propagation bound has passed since the kind was last written
// by anyone: a notification late by up to that much could otherwise
// arrive just after the case's first change and hide that change's own
// late notification; one later still is caught without help, since the
// case's own changes, each seen at the next notification, can hide a
// lateness of at most twice the bound.
func (f *Framework) holdQuiet(ctx context.Context) error {
	kinds := f.Spec.Isolation.Quiet
	if len(kinds) == 0 {
		return nil
	}
	release, err := f.Env.quiet.Hold(ctx, kinds...)
	if err != nil {
		return fmt.Errorf("hold other cases' writes of %v off: %w", kinds, err)
	}
	ginkgo.DeferCleanup(release)
	var settled time.Time
	for _, k := range kinds {
		if t := f.Env.quiet.LastWrite(k).Add(2 * f.propagationBound(k)); t.After(settled) {
			settled = t
		}
	}
	select {
	case <-time.After(time.Until(settled)):
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for earlier writes of %v to settle: %w", kinds, context.Cause(ctx))
	}
}

// propagationBound is how fast a change of the kind must be enforced.
func (f *Framework) propagationBound(k quiet.Kind) time.Duration {
	if k == quiet.WebhookConfigurations {
		return f.Bounds.WebhookConfigPropagation.Duration
	}
	return f.Bounds.PolicyPropagation.Duration // both policy kinds
}

// waitForControllerObjects waits until the controller manager has put its
// objects into the new namespace (the default ServiceAccount and the
// kube-root-ca.crt ConfigMap). Until then pods are rejected, and a webhook
// the case registers would see the controller manager's own writes.
func (f *Framework) waitForControllerObjects(ctx context.Context) error {
	return wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.ObjectState.Duration, true,
		func(ctx context.Context) (bool, error) {
			if _, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Get(ctx, "default", metav1.GetOptions{}); err != nil {
				return false, ignoreNotFound(err)
			}
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err == nil, ignoreNotFound(err)
		})
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Record adds a measurement to this case's results.
func (f *Framework) Record(m results.Measurement) {
	ginkgo.AddReportEntry(results.MeasurementEntry, m, ginkgo.ReportEntryVisibilityNever)
}

func joinNames(names []features.Name) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// usesFakeWebhooks reports whether a spec registers webhooks served by the
// harness's own server, which the cluster must be able to call.
func usesFakeWebhooks(s spec.Spec) bool {
	for _, n := range s.Features {
		if n == features.MutatingWebhook || n == features.ValidatingWebhook {
			return true
		}
	}
	return false
}

// namespacePrefix keeps namespace names short: they end up inside label
// values and webhook names, which have 63-character limits.
func namespacePrefix(shortName string) string {
	name := strings.ToLower(shortName)
	if len(name) > 24 {
		name = name[:24]
	}
	return "ac-" + name + "-"
}
