package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/incluster"
	"github.com/admission-conformance/admission-conformance/framework/report"
	"github.com/admission-conformance/admission-conformance/framework/report/history"
	"github.com/admission-conformance/admission-conformance/framework/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/rundir"
	"github.com/admission-conformance/admission-conformance/framework/runner"
)

// In-cluster mode (--in-cluster): this process creates the run's objects in
// the cluster (framework/incluster), streams the pod's output, copies its
// report dir back and deletes everything. The pod runs this same binary
// with the hidden flags below.

// inClusterOptions are the in-cluster flags of `run`.
type inClusterOptions struct {
	// The client's.
	InCluster    bool   `json:"inCluster,omitempty"`
	Image        string `json:"image,omitempty"`
	ImageArchive string `json:"imageArchive,omitempty"`

	// The pod's (hidden; the client writes them).
	runID            string
	webhookListen    string
	webhookAdvertise string
	webhookNames     []string
	publishResults   string
}

// lostAfter is how long the client keeps trying to reach a cluster that
// stopped answering before it gives up following the run.
const lostAfter = 2 * time.Minute

func (o *runOptions) addInClusterFlags(fs *pflag.FlagSet) {
	ic := &o.inClusterOptions
	fs.BoolVar(&ic.InCluster, "in-cluster", ic.InCluster, "run the harness in the cluster (provider kubeconfig or kind): a Job of the harness image serving the fake webhooks behind a Service; "+
		"its output streams here, its reports are copied to --report-dir, and everything it created is deleted at the end")
	fs.StringVar(&ic.Image, "image", ic.Image, "the harness image the cluster pulls for --in-cluster (write it with 'run-conformance image'); "+
		"with --provider kind, default "+DefaultPluginImage+", loaded into the nodes")
	fs.StringVar(&ic.ImageArchive, "image-archive", ic.ImageArchive, "with --in-cluster --provider kind: load this image archive into the nodes (default: one of this binary, written for the run); it must hold --image")
	fs.StringVar(&ic.runID, incluster.FlagRunID, ic.runID, "the run ID (in-cluster pod)")
	fs.StringVar(&ic.webhookListen, incluster.FlagWebhookListen, ic.webhookListen, "where the fake webhooks listen (in-cluster pod)")
	fs.StringVar(&ic.webhookAdvertise, incluster.FlagWebhookAdvertise, ic.webhookAdvertise, "IP:PORT the apiservers call the fake webhooks at (in-cluster pod)")
	fs.StringArrayVar(&ic.webhookNames, incluster.FlagWebhookName, ic.webhookNames, "a DNS name the webhook certificate carries, repeatable (in-cluster pod)")
	fs.StringVar(&ic.publishResults, incluster.FlagPublishResults, ic.publishResults, "namespace to publish the report dir to at the end (in-cluster pod)")
	for _, f := range []string{incluster.FlagRunID, incluster.FlagWebhookListen, incluster.FlagWebhookAdvertise, incluster.FlagWebhookName, incluster.FlagPublishResults} {
		_ = fs.MarkHidden(f)
	}
}

// validateInCluster checks the in-cluster flags, the client's and the
// pod's.
func (o *runOptions) validateInCluster() error {
	ic := o.inClusterOptions
	if ic.runID != "" || ic.webhookListen != "" || ic.webhookAdvertise != "" || len(ic.webhookNames) > 0 || ic.publishResults != "" {
		if err := o.validatePodFlags(); err != nil {
			return err
		}
	}
	if !ic.InCluster {
		if ic.Image != "" || ic.ImageArchive != "" {
			return usageError("--image and --image-archive go with --in-cluster")
		}
		return nil
	}
	switch o.Provider {
	case kubeconfig.Name:
		if ic.Image == "" {
			return usageError("--in-cluster needs --image: the harness image the cluster pulls (write it with 'run-conformance image -o harness.tar --ref REGISTRY/NAME:TAG' and push it there)")
		}
		if ic.ImageArchive != "" {
			return usageError("--image-archive goes with --provider kind (it is loaded into kind's nodes); push the image where the cluster pulls from instead")
		}
		if err := checkImageRef("--image", ic.Image, false); err != nil {
			return err
		}
	case kind.Name:
		if ic.Image != "" {
			if err := checkImageRef("--image", ic.Image, true); err != nil {
				return err
			}
		}
		if ic.ImageArchive != "" {
			info, err := os.Stat(ic.ImageArchive)
			if err != nil || !info.Mode().IsRegular() {
				return usageError("--image-archive %s is not a readable file (write one with 'run-conformance image -o FILE')", ic.ImageArchive)
			}
		}
	default:
		return usageError("--in-cluster goes with --provider kubeconfig or kind (the embedded cluster runs in this process)")
	}
	if o.WebhookHost != "" || o.PluginImage != "" {
		return usageError("--in-cluster serves the fake webhooks from its own pod: drop --webhook-host and --plugin-image")
	}
	return nil
}

// validatePodFlags checks the hidden flags the in-cluster client writes
// for its pod.
func (o *runOptions) validatePodFlags() error {
	ic := o.inClusterOptions
	if ic.InCluster || o.Provider != kubeconfig.Name {
		return usageError("--%s, --%s, --%s, --%s and --%s are the in-cluster pod's own: they go with --provider kubeconfig, without --in-cluster",
			incluster.FlagRunID, incluster.FlagWebhookListen, incluster.FlagWebhookAdvertise, incluster.FlagWebhookName, incluster.FlagPublishResults)
	}
	if ic.runID != "" {
		if err := incluster.CheckRunID(ic.runID); err != nil {
			return usageError("--%s: %v", incluster.FlagRunID, err)
		}
	}
	if (ic.webhookListen == "") != (ic.webhookAdvertise == "") || (len(ic.webhookNames) > 0 && ic.webhookListen == "") {
		return usageError("--%s and --%s go together (and --%s with them)", incluster.FlagWebhookListen, incluster.FlagWebhookAdvertise, incluster.FlagWebhookName)
	}
	if ic.webhookListen != "" {
		if o.WebhookHost != "" || o.PluginImage != "" {
			return usageError("--%s is a third way to reach the fake webhooks: not with --webhook-host or --plugin-image", incluster.FlagWebhookListen)
		}
		if _, _, err := net.SplitHostPort(ic.webhookListen); err != nil {
			return usageError("--%s %q is not HOST:PORT", incluster.FlagWebhookListen, ic.webhookListen)
		}
		host, port, err := net.SplitHostPort(ic.webhookAdvertise)
		if p, perr := strconv.Atoi(port); err != nil || perr != nil || p < 1 || p > 65535 || net.ParseIP(host) == nil {
			return usageError("--%s %q is not IP:PORT", incluster.FlagWebhookAdvertise, ic.webhookAdvertise)
		}
	}
	for _, n := range ic.webhookNames {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return usageError("--%s %q is not a DNS name", incluster.FlagWebhookName, n)
		}
	}
	if ic.publishResults != "" {
		if errs := validation.IsDNS1123Label(ic.publishResults); len(errs) > 0 || ic.runID == "" {
			return usageError("--%s %q must be a namespace name, with --%s", incluster.FlagPublishResults, ic.publishResults, incluster.FlagRunID)
		}
	}
	return nil
}

// podRunArgs are the client's own choices, as flags of the pod's `run`:
// selection (a --rerun-failed becomes the label filter it stands for),
// claimed features (plus claims, what the cluster provider knows the
// cluster does), bounds that differ from the defaults, parallelism,
// implementation.
func (o *runOptions) podRunArgs(claims []string) []string {
	var a []string
	for _, s := range o.Suites {
		a = append(a, "--suite", s)
	}
	for _, p := range o.Profiles {
		a = append(a, "--profile", p)
	}
	feats := append([]string(nil), o.SupportedFeatures...)
	for _, c := range claims {
		if !slices.Contains(feats, c) {
			feats = append(feats, c)
		}
	}
	if len(feats) > 0 {
		a = append(a, "--supported-features", strings.Join(feats, ","))
	}
	if f := runner.AndFilters(o.LabelFilter, o.rerunFilter); f != "" {
		a = append(a, "--label-filter", f)
	}
	for _, f := range o.Focus {
		a = append(a, "--focus", f)
	}
	for _, s := range o.Skip {
		a = append(a, "--skip", s)
	}
	if len(o.NodeAdmissionNodes) > 0 {
		a = append(a, "--node-admission-nodes", strings.Join(o.NodeAdmissionNodes, ","))
	}
	a = append(a, boundArgs(o.Bounds)...)
	if o.Parallel != 0 {
		a = append(a, "--parallel", strconv.Itoa(o.Parallel))
	}
	a = append(a, o.repeatArgs()...)
	if !o.ReferenceInitializers {
		a = append(a, "--reference-initializers=false")
	}
	impl := o.Implementation
	for _, f := range []struct{ flag, value string }{{"organization", impl.Organization}, {"project", impl.Project}, {"url", impl.URL},
		{"version", impl.Version}, {"contact", strings.Join(impl.Contact, ",")}} {
		if f.value != "" {
			a = append(a, "--implementation-"+f.flag, f.value)
		}
	}
	return a
}

// boundArgs are --bound flags for every bound that differs from its
// default, in the order of bounds.Keys.
func boundArgs(b bounds.Bounds) []string {
	asMap := func(b bounds.Bounds) map[string]string {
		data, _ := json.Marshal(b)
		m := map[string]string{}
		_ = json.Unmarshal(data, &m)
		return m
	}
	got, def := asMap(b), asMap(bounds.Defaults())
	var a []string
	for _, k := range bounds.Keys() {
		if got[k] != def[k] {
			a = append(a, "--bound", k+"="+got[k])
		}
	}
	return a
}

// forwardedFeatures are the features a cluster provider declares that a
// run in the cluster may claim: behaviours of the apiservers and the
// scheduler, which need no more than the preflight's permissions (not the
// metrics or the audit logs, which the pod cannot reach as the provider
// does). The nodes' kubelets (NodeAdmission) go as --node-admission-nodes.
var forwardedFeatures = []features.Name{features.MutatingAdmissionPolicy, features.WebhookConfigurationOrder,
	features.ParallelValidatingWebhooks, features.Scheduler}

// admissionNodes are the nodes of c that run real kubelet admission code.
func admissionNodes(c cluster.Cluster) []string {
	var out []string
	for _, n := range c.Nodes() {
		if n.Capabilities.Has(features.NodeAdmission) {
			out = append(out, n.Name)
		}
	}
	return out
}

func forwardable(c cluster.Cluster) []string {
	var out []string
	caps := c.Capabilities()
	for _, f := range forwardedFeatures {
		if caps.Has(f) {
			out = append(out, string(f))
		}
	}
	return out
}

// newInClusterProvider is the pod's provider: the kubeconfig provider with
// the pod's in-cluster credentials (default loading rules, no kubeconfig
// file) and its webhooks served behind its Service.
func (o *runOptions) servedWebhooks() []kubeconfig.Option {
	if o.webhookListen == "" {
		return nil
	}
	return []kubeconfig.Option{kubeconfig.WithServedWebhooks(o.webhookListen, o.webhookAdvertise, o.webhookNames...)}
}

// publishResults is the pod's last act: its report dir and how the run
// ended go to ConfigMaps of its namespace, where the client fetches them.
func publishResults(errOut io.Writer, o runOptions, runErr error) {
	code, message := exitPassed, ""
	if runErr != nil {
		code, message = exitUsage, oneLine(runErr.Error())
		var ee *exitError
		if errors.As(runErr, &ee) {
			code = ee.code
		}
	}
	cfg, err := kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context)).LoadConfig()
	if err == nil {
		var client kubernetes.Interface
		if client, err = kubernetes.NewForConfig(cfg); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err = incluster.Publish(ctx, client, o.publishResults, o.runID, o.ReportDir, code, message)
			cancel()
		}
	}
	if err != nil {
		fmt.Fprintf(errOut, "run-conformance: cannot publish the reports: %v\n", oneLine(err.Error()))
		return
	}
	fmt.Fprintf(errOut, "published the reports to %s\n", o.publishResults)
}

// inClusterClient is the user's side of an in-cluster run.
type inClusterClient struct {
	out    io.Writer
	o      runOptions
	cfg    *rest.Config
	client kubernetes.Interface
	logger logr.Logger
	// where names the cluster for the commands it suggests:
	// "--kubeconfig K --context C".
	where string
}

// runInCluster is `run --in-cluster`.
func runInCluster(out io.Writer, o runOptions) error {
	if o.rerunFailed != "" && o.rerunFilter == "" {
		fmt.Fprintf(out, "nothing failed in %s: nothing to rerun\n", o.rerunFailed)
		return nil
	}
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return usageError("cannot create report dir: %v", err)
	}
	runID := harness.NewRunID()
	c := &inClusterClient{out: out, o: o, logger: progressLogger(out), where: clusterFlags(o.Kubeconfig, o.Context)}
	sig := watchInterrupts(func(s os.Signal) {
		fmt.Fprintf(os.Stderr, "run-conformance: interrupted a third time (%s): exiting now; the in-cluster run %s may be left in the cluster: "+
			"run 'run-conformance cleanup %s --run %s'\n", signalName(s), runID, c.where, runID)
		os.Exit(exitFailed)
	})
	defer sig.stop()
	sig.tell(out, o.Bounds.InterruptStop.Duration)

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
			return usageError("%v", err)
		}
		c.cfg = cfg
	}
	fast := rest.CopyConfig(c.cfg)
	fast.QPS, fast.Burst = 100, 100
	probe := rest.CopyConfig(fast)
	probe.Timeout = 15 * time.Second
	pc, err := kubernetes.NewForConfig(probe)
	if err != nil {
		return usageError("%v", err)
	}
	// With the interrupts' context: a cluster that does not answer must
	// not hold a signal up for the probe's whole timeout.
	_, err = pc.Discovery().RESTClient().Get().AbsPath("/version").Do(sig.ctx).Raw()
	if s := sig.received(); s != nil {
		return usageError("interrupted by %s during set-up: nothing was created in the cluster", signalName(s))
	}
	if err != nil {
		return usageError("cluster set-up failed: cluster at %s does not answer (%v): check the kubeconfig and that the cluster is up", c.cfg.Host, oneLine(err.Error()))
	}
	if c.client, err = kubernetes.NewForConfig(fast); err != nil {
		return usageError("%v", err)
	}
	r, err := incluster.New(runID, image, incluster.WithRunArgs(o.podRunArgs(claims)...), incluster.WithImagePullPolicy(pull),
		incluster.WithGracePeriod(o.Bounds.Cleanup.Duration+incluster.DefaultGracePeriod))
	if err != nil {
		return usageError("%v", err)
	}
	err = c.preflight(sig.ctx, r)
	if s := sig.received(); s != nil {
		return usageError("interrupted by %s during set-up: nothing was created in the cluster", signalName(s))
	}
	if err != nil {
		return usageError("%v", err)
	}
	createCtx, cancel := context.WithTimeout(sig.ctx, time.Minute)
	err = incluster.Create(createCtx, c.client, r, c.logger)
	cancel()
	if s := sig.received(); s != nil {
		_ = c.delete(r, false)
		return usageError("interrupted by %s during set-up: removed what the run created", signalName(s))
	}
	if err != nil {
		return usageError("in-cluster set-up failed: %v (removed what it created)", oneLine(err.Error()))
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
func (c *inClusterClient) startKind(sig *interrupts, image *string) (cluster.Cluster, func(), error) {
	o := c.o
	started := time.Now()
	fmt.Fprintln(c.out, "starting kind cluster...")
	kc, err := o.kindProvider(c.logger).Start(sig.ctx)
	if s := sig.received(); s != nil {
		if kc != nil {
			_ = kc.Stop(context.Background())
		}
		return nil, nil, usageError("interrupted by %s during cluster start-up: start-up stopped", signalName(s))
	}
	if err != nil {
		return nil, nil, usageError("cluster set-up failed: %v", err)
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
		*image = DefaultPluginImage
	}
	archive := o.ImageArchive
	if archive == "" {
		dir, err := rundir.Create("", rundir.ImagePrefix)
		if err != nil {
			return nil, stop, usageError("%v", err)
		}
		defer os.RemoveAll(dir)
		archive = filepath.Join(dir, "harness.tar")
		if _, err := writeHarnessImage(archive, []string{*image}); err != nil {
			return nil, stop, usageError("cannot write the harness image: %v", err)
		}
	}
	loader, ok := kc.(kind.ImageLoader)
	if !ok {
		return nil, stop, usageError("the kind cluster cannot load images")
	}
	loading := time.Now()
	if err := loader.LoadImageArchive(archive); err != nil {
		return nil, stop, usageError("cluster set-up failed: %v", err)
	}
	fmt.Fprintf(c.out, "loaded %s into the nodes in %.1fs\n", *image, time.Since(loading).Seconds())
	return kc, stop, nil
}

// preflight prints what the run will create and the permissions its
// service account gets, and checks that the user may do all of it (a
// ClusterRole grants only what its creator holds, so the pod's permissions
// are checked in every namespace).
func (c *inClusterClient) preflight(ctx context.Context, r *incluster.Run) error {
	ns := r.NamespaceName()
	c.logger.Info(fmt.Sprintf("preflight: will create namespace %s (Pod Security: restricted) holding service account %s, service %s "+
		"(the apiservers call the fake webhooks there) and job %s (image %s); cluster role and binding %s granting the service account the "+
		"permissions below; all labelled %s, deleted at the end", ns, incluster.ServiceAccountName, incluster.ServiceName, incluster.JobName,
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
	pod := incluster.PodAccess()
	denied, err := kubeconfig.CheckAccess(ctx, c.client, pod, "")
	if err != nil {
		return fmt.Errorf("preflight RBAC check: %w", err)
	}
	client := incluster.ClientAccess()
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

// follow waits for the pod, streams its output, fetches its reports and
// deletes the run; the error carries the run's exit code.
func (c *inClusterClient) follow(sig *interrupts, r *incluster.Run) error {
	o, ns := c.o, r.NamespaceName()
	startCtx, cancel := context.WithTimeout(sig.ctx, o.Bounds.ClusterStart.Duration)
	pod, err := incluster.WaitStarted(startCtx, c.client, ns, c.logger)
	cancel()
	if s := sig.received(); s != nil {
		_ = c.delete(r, false)
		return usageError("interrupted by %s before the run's pod started: removed what the run created", signalName(s))
	}
	if err != nil {
		_ = c.delete(r, false)
		return usageError("in-cluster run did not start: %v (removed what it created)", oneLine(err.Error()))
	}
	fmt.Fprintf(c.out, "pod %s/%s runs; its output follows\n", ns, pod)
	f := &incluster.Follower{Client: c.client, Namespace: ns, Pod: pod, Out: c.out, Lost: lostAfter}
	err = f.Follow(sig.ctx)
	interrupted := sig.received()
	if interrupted != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintf(c.out, "interrupted by %s: stopping the run in the cluster (its pod stops its specs in order and writes its reports; interrupt again to stop waiting)\n",
			signalName(interrupted))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = incluster.Stop(ctx, c.client, ns)
		cancel()
		wait, cancel := context.WithTimeout(sig.again, o.Bounds.Cleanup.Duration+incluster.DefaultGracePeriod+30*time.Second)
		err = f.Follow(wait)
		cancel()
	}
	var lost *incluster.LostError
	if errors.As(err, &lost) {
		if derr := c.delete(r, false); derr != nil {
			return usageError("%v; the run goes on in the cluster: fetch its results with 'run-conformance results %s --run %s', or remove it with 'run-conformance cleanup %s --run %s'",
				lost, c.where, r.ID, c.where, r.ID)
		}
		return usageError("%v; removed the run", lost)
	}
	fetchCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	outcome, ferr := incluster.Fetch(fetchCtx, c.client, ns, o.ReportDir)
	cancel()
	if ferr != nil && !errors.Is(ferr, incluster.ErrNoResults) {
		return usageError("cannot fetch the run's reports (%v): the run is left in the cluster; fetch them with 'run-conformance results %s --run %s'",
			oneLine(ferr.Error()), c.where, r.ID)
	}
	var code int
	var reason string
	if ferr != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, reason, _ = incluster.ExitCode(ctx, c.client, ns, pod)
		cancel()
	}
	derr := c.delete(r, true)
	if ferr != nil {
		if interrupted != nil {
			return &exitError{code: exitFailed, err: fmt.Errorf("interrupted by %s: the run's pod published no reports; what it printed is above", signalName(interrupted))}
		}
		return usageError("the run's pod ended (exit code %d %s) without publishing its reports; what it printed is above", code, reason)
	}
	return c.finish(outcome, derr, interrupted)
}

// delete removes the run (its pod, what its specs left, its objects),
// saying so when loud.
func (c *inClusterClient) delete(r *incluster.Run, loud bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.o.Bounds.Cleanup.Duration+incluster.DefaultGracePeriod)
	defer cancel()
	started := time.Now()
	err := incluster.Delete(ctx, c.client, r.ID, func(ctx context.Context, id string) error { return harness.Sweep(ctx, c.cfg, id) }, logr.Discard())
	if err == nil && loud {
		fmt.Fprintf(c.out, "removed the in-cluster run %s in %.1fs\n", r.ID, time.Since(started).Seconds())
	}
	return err
}

// finish reports where the reports are, keeps the run in --history and
// turns the run's outcome into this command's.
func (c *inClusterClient) finish(outcome incluster.Outcome, deleteErr error, interrupted os.Signal) error {
	o := c.o
	fmt.Fprintf(c.out, "reports in %s: %s\n", o.ReportDir, strings.Join(outcome.Files, ", "))
	if o.History != "" {
		if err := keepInHistory(o); err != nil {
			return usageError("%v", err)
		}
	}
	// The pod's message names its own report dir.
	message := strings.ReplaceAll(outcome.Message, incluster.ReportDir+"/", strings.TrimSuffix(o.ReportDir, "/")+"/")
	if deleteErr != nil {
		return usageError("tear-down failed: %v (run 'run-conformance cleanup %s')", oneLine(deleteErr.Error()), c.where)
	}
	switch {
	case outcome.ExitCode == exitPassed && interrupted == nil:
		return nil
	case interrupted != nil:
		code := exitFailed
		if outcome.ExitCode == exitUsage {
			code = exitUsage
		}
		return &exitError{code: code, err: fmt.Errorf("interrupted by %s: the run stopped early and was removed from the cluster; what ran is in %s",
			signalName(interrupted), filepath.Join(o.ReportDir, runLogName))}
	case outcome.ExitCode == exitFailed:
		return &exitError{code: exitFailed, err: errors.New(message)}
	default:
		if message == "" {
			message = fmt.Sprintf("the run in the cluster ended with exit code %d", outcome.ExitCode)
		}
		return usageError("%s", message)
	}
}

// keepInHistory copies the fetched run into --history and redraws
// report.html with the trends over the kept runs.
func keepInHistory(o runOptions) error {
	res, err := results.Read(filepath.Join(o.ReportDir, results.FileName))
	if err != nil {
		return fmt.Errorf("cannot read the fetched results: %w", err)
	}
	var kept []string
	for _, f := range []string{results.FileName, report.FileName, "junit.xml", runLogName} {
		if _, err := os.Stat(filepath.Join(o.ReportDir, f)); err == nil {
			kept = append(kept, filepath.Join(o.ReportDir, f))
		}
	}
	if _, err := history.Save(o.History, res, kept...); err != nil {
		return fmt.Errorf("cannot keep the run in --history %s: %w", o.History, err)
	}
	runs, err := history.Runs(o.History)
	if err != nil {
		return fmt.Errorf("cannot read --history %s: %w", o.History, err)
	}
	impl, _ := implementationOrNil(o.Implementation)
	in := htmlreport.Input{Results: res, Report: report.Build(res, impl)}
	for _, r := range runs {
		in.History = append(in.History, r.Results)
	}
	_, err = htmlreport.Write(o.ReportDir, in)
	return err
}
