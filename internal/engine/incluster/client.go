// Package incluster is both sides of an in-cluster run (run --in-cluster):
// the client on the user's machine creates the run's objects in the
// cluster (internal/clusterrun), streams the pod's output, copies its
// report dir back and deletes everything; the pod runs this same binary
// with the options file the client writes for it (PodOptions) and
// publishes its reports at the end
// (Publish). Fetch is the `results` command: a run whose client went away.
package incluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
	"github.com/admission-conformance/admission-conformance/internal/selfimage"
)

// lostAfter is how long the client keeps trying to reach a cluster that
// stopped answering before it gives up following the run.
const lostAfter = 2 * time.Minute

// runClient is the user's side of an in-cluster run.
type runClient struct {
	out    io.Writer
	o      runconfig.Config
	cfg    *rest.Config
	client kubernetes.Interface
	logger logr.Logger
	// where names the cluster for the commands it suggests:
	// "--kubeconfig K --context C".
	where string
}

// Run is `run --in-cluster`: the client.
func Run(out io.Writer, o runconfig.Config, logger logr.Logger) error {
	if o.RerunFailed != "" && o.RerunFilter == "" {
		fmt.Fprintf(out, "nothing failed in %s: nothing to rerun\n", o.RerunFailed)
		return nil
	}
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return exitcode.Usagef("cannot create report dir: %v", err)
	}
	runID := harness.NewRunID()
	c := &runClient{out: out, o: o, logger: logger, where: clusterFlags(o.Kubeconfig, o.Context)}
	sig := interrupt.Watch(func(s os.Signal) {
		fmt.Fprintf(os.Stderr, "run-conformance: interrupted a third time (%s): exiting now; the in-cluster run %s may be left in the cluster: "+
			"run 'run-conformance cleanup %s --run %s'\n", interrupt.SignalName(s), runID, c.where, runID)
		os.Exit(exitcode.Failed)
	})
	defer sig.Stop()
	sig.Tell(out, o.Bounds.InterruptStop.Duration)

	image, pull := o.Image, corev1.PullIfNotPresent
	var claims []string
	switch o.Provider {
	case kind.Name:
		kc, stop, err := c.startKind(sig, &image)
		if stop != nil {
			defer stop()
		}
		if err != nil {
			return err
		}
		c.cfg, pull, claims = kc.RESTConfig(), corev1.PullNever, forwardable(kc)
		o.NodeAdmissionNodes = admissionNodes(kc)
		c.o.NodeAdmissionNodes = o.NodeAdmissionNodes
		c.where = "--kubeconfig <the kind cluster's>"
	default:
		cfg, err := kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context)).LoadConfig()
		if err != nil {
			return exitcode.Usagef("%v", err)
		}
		c.cfg = cfg
	}
	fast := rest.CopyConfig(c.cfg)
	fast.QPS, fast.Burst = 100, 100
	probe := rest.CopyConfig(fast)
	probe.Timeout = 15 * time.Second
	pc, err := kubernetes.NewForConfig(probe)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	// With the interrupts' context: a cluster that does not answer must
	// not hold a signal up for the probe's whole timeout.
	_, err = pc.Discovery().RESTClient().Get().AbsPath("/version").Do(sig.Ctx).Raw()
	if s := sig.Received(); s != nil {
		return exitcode.Usagef("interrupted by %s during set-up: nothing was created in the cluster", interrupt.SignalName(s))
	}
	if err != nil {
		return exitcode.Usagef("cluster set-up failed: cluster at %s does not answer (%v): check the kubeconfig and that the cluster is up", c.cfg.Host, exitcode.OneLine(err.Error()))
	}
	if c.client, err = kubernetes.NewForConfig(fast); err != nil {
		return exitcode.Usagef("%v", err)
	}
	opts := []clusterrun.Option{clusterrun.WithOptions(PodOptions(o, claims)), clusterrun.WithImagePullPolicy(pull), clusterrun.WithSpecs(o.MaySelect()),
		clusterrun.WithGracePeriod(o.Bounds.Cleanup.Duration + clusterrun.DefaultGracePeriod)}
	if o.ServiceAccount != "" {
		a, err := clusterrun.ParseAccount(o.ServiceAccount)
		if err != nil {
			return exitcode.Usagef("--service-account %v", err)
		}
		opts = append(opts, clusterrun.WithServiceAccount(a))
	}
	r, err := clusterrun.New(runID, image, opts...)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	err = c.preflight(sig.Ctx, r)
	if s := sig.Received(); s != nil {
		return exitcode.Usagef("interrupted by %s during set-up: nothing was created in the cluster", interrupt.SignalName(s))
	}
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	createCtx, cancel := context.WithTimeout(sig.Ctx, time.Minute)
	err = clusterrun.Create(createCtx, c.client, r, c.logger)
	cancel()
	if s := sig.Received(); s != nil {
		_ = c.delete(r, false)
		return exitcode.Usagef("interrupted by %s during set-up: removed what the run created", interrupt.SignalName(s))
	}
	if err != nil {
		return exitcode.Usagef("in-cluster set-up failed: %v (removed what it created)", exitcode.OneLine(err.Error()))
	}
	fmt.Fprintf(out, "in-cluster run %s: namespace %s, image %s (if this command goes away, the run goes on in the cluster: 'run-conformance results %s --run %s' fetches it)\n",
		runID, r.NamespaceName(), image, c.where, runID)
	return c.follow(sig, r)
}

// clusterFlags spell the cluster for suggested commands.
func clusterFlags(kubeconfigPath, context string) string {
	s := "--kubeconfig " + kubeconfigPath
	if kubeconfigPath == "" {
		s = "--kubeconfig ~/.kube/config"
	}
	if context != "" {
		s += " --context " + context
	}
	return s
}

// startKind creates (or reuses) the kind cluster and loads the harness
// image into its nodes; stop deletes the cluster (unless kept).
func (c *runClient) startKind(sig *interrupt.Watcher, image *string) (cluster.Cluster, func(), error) {
	o := c.o
	started := time.Now()
	fmt.Fprintln(c.out, "starting kind cluster...")
	kc, err := o.KindProvider(c.logger).Start(sig.Ctx)
	if s := sig.Received(); s != nil {
		if kc != nil {
			_ = kc.Stop(context.Background())
		}
		return nil, nil, exitcode.Usagef("interrupted by %s during cluster start-up: start-up stopped", interrupt.SignalName(s))
	}
	if err != nil {
		return nil, nil, exitcode.Usagef("cluster set-up failed: %v", err)
	}
	stop := func() {
		stopping := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), o.Bounds.ClusterStop.Duration)
		defer cancel()
		if err := kc.Stop(ctx); err != nil {
			fmt.Fprintf(c.out, "warning: stopping the kind cluster: %v\n", err)
			return
		}
		fmt.Fprintf(c.out, "cluster stopped in %.1fs\n", time.Since(stopping).Seconds())
	}
	fmt.Fprintf(c.out, "cluster ready in %.1fs: %s\n", time.Since(started).Seconds(), kc.Topology())
	if *image == "" {
		*image = selfimage.DefaultRef(o.Version)
	}
	archive := o.ImageArchive
	if archive == "" {
		dir, err := rundir.Create("", rundir.ImagePrefix)
		if err != nil {
			return nil, stop, exitcode.Usagef("%v", err)
		}
		defer rundir.Remove(dir)
		archive = filepath.Join(dir, "harness.tar")
		if _, err := selfimage.Write(archive, []string{*image}, o.Version); err != nil {
			return nil, stop, exitcode.Usagef("cannot write the harness image: %v", err)
		}
	}
	loader, ok := kc.(kind.ImageLoader)
	if !ok {
		return nil, stop, exitcode.Usagef("the kind cluster cannot load images")
	}
	loading := time.Now()
	if err := loader.LoadImageArchive(archive); err != nil {
		return nil, stop, exitcode.Usagef("cluster set-up failed: %v", err)
	}
	fmt.Fprintf(c.out, "loaded %s into the nodes in %.1fs\n", *image, time.Since(loading).Seconds())
	return kc, stop, nil
}

// preflight prints what the run will create and the permissions its
// service account gets, and checks that the user may do all of it (a
// ClusterRole grants only what its creator holds, so the pod's permissions
// are checked in every namespace).
func (c *runClient) preflight(ctx context.Context, r *clusterrun.Run) error {
	if r.Account() != nil {
		return c.accountPreflight(ctx, r)
	}
	ns := r.NamespaceName()
	if err := c.grantOptional(ctx, r); err != nil {
		return err
	}
	c.logger.Info(fmt.Sprintf("preflight: will create namespace %s (Pod Security: restricted) holding service account %s, service %s "+
		"(the apiservers call the fake webhooks there) and job %s (image %s); cluster role and binding %s granting the service account the "+
		"permissions below; all labelled %s, deleted at the end", ns, clusterrun.ServiceAccountName, clusterrun.ServiceName, clusterrun.JobName,
		r.Image, ns, r.Selector()))
	for _, rule := range r.ClusterRole().Rules {
		group := rule.APIGroups[0]
		if group == "" {
			group = "core"
		}
		c.logger.Info(fmt.Sprintf("preflight: grant %s %s (%s)", strings.Join(rule.Verbs, ","), strings.Join(rule.Resources, ","), group))
	}
	for _, line := range kubeconfig.Plan {
		c.logger.Info("preflight: the run's pod will create " + line)
	}
	pod := r.PodAccess()
	denied, err := kubeconfig.CheckAccess(ctx, c.client, pod, "")
	if err != nil {
		return fmt.Errorf("preflight RBAC check: %w", err)
	}
	client := clusterrun.ClientAccess()
	more, err := kubeconfig.CheckAccess(ctx, c.client, client, kubeconfig.PreflightNamespace)
	if err != nil {
		return fmt.Errorf("preflight RBAC check: %w", err)
	}
	if denied = append(denied, more...); len(denied) > 0 {
		return fmt.Errorf("preflight: the kubeconfig's user may not %s: grant these (or use an admin kubeconfig)", strings.Join(denied, ", "))
	}
	c.logger.Info(fmt.Sprintf("preflight: RBAC allows all %d operations the run uses", len(pod)+len(client)))
	return nil
}

// grantOptional adds to the run's ClusterRole the rights to impersonate
// identities outside the harness's own that selected specs want, where the
// user holds them (a ClusterRole grants only what its creator holds); the
// others are named, and the cases that need them will be not supported.
func (c *runClient) grantOptional(ctx context.Context, r *clusterrun.Run) error {
	_, optional := access.ForSpecs(c.o.MaySelect())
	for _, o := range optional {
		denied, err := access.Check(ctx, c.client, o.Access, "")
		if err != nil {
			return fmt.Errorf("preflight RBAC check: %w", err)
		}
		what := "optional: " + strings.Join(o.Specs, ", ") + " impersonate " + o.Identity.String() + " (" + o.Identity.Why + "): "
		if len(denied) > 0 {
			c.logger.Info("preflight: " + what + "the user may not " + strings.Join(denied, ", ") +
				": not granted to the run; the cases that impersonate it will be reported not supported")
			continue
		}
		r.Grant(o.Access...)
		c.logger.Info("preflight: " + what + "granted to the run's service account")
	}
	return nil
}
