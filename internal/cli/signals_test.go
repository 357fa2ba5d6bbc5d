package cli

// TestSignalsInEveryPhase holds each phase of each command to the promise
// on interrupts: the first SIGINT, SIGTERM or SIGHUP stops it in order
// within the interruptStop bound, the third exits within a second, and
// nothing is left (files in the TMPDIR, processes, listening ports, objects
// in the cluster).

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/ceilings"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/lateness"
	"github.com/admission-conformance/admission-conformance/internal/logs"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// forceWithin is how soon after the third signal a command must be gone.
const forceWithin = time.Second

// phase is one phase of a command, the run to start and when it is in it.
type phase struct {
	name string
	// args (and env) start the command; with a cluster, against it.
	args func(t *testing.T, c *testCluster) []string
	env  []string
	// cluster: the phase needs a cluster of its own (in-cluster runs,
	// matrix, cleanup), one embedded cluster in this process for them all.
	cluster bool
	// at waits until the command is in the phase.
	at func(t *testing.T, r *liveRun, c *testCluster)
	// sig is the one signal; code and want what the command then says.
	sig  syscall.Signal
	code int
	want string
	// forced: the phase stops in order slower than three signals come,
	// so the third is what ends it (exit forcedCode, "interrupted a third
	// time"). Else it may end in order before the third.
	forced     bool
	forcedCode int
	// countNodes: check that no more hollow kubelets start after the
	// signal.
	countNodes bool
	// check looks at what the phase leaves beyond files, processes and
	// ports: objects in the cluster.
	check func(t *testing.T, r *liveRun, c *testCluster, signals int)
}

func TestSignalsInEveryPhase(t *testing.T) {
	top := t
	stop := bounds.Defaults().InterruptStop.Duration
	// How starved this machine is (make test runs other packages beside):
	// a third signal taken late there is the machine's doing.
	busy := lateness.Start(lateness.Options{Keep: time.Minute})
	defer busy.Stop()
	starved := bounds.Defaults().HarnessStarved.Duration
	nodeCount := manyNodes()
	nodeRun := func(parallel string) func(*testing.T, *testCluster) []string {
		return func(*testing.T, *testCluster) []string {
			return []string{"run", "--suite", "nodeadmit,ordering", "--label-filter", "spec:KubeletRejectsNodePorts || spec:MutatingBeforeValidating",
				"--nodes", strconv.Itoa(nodeCount), "--parallel", parallel,
				// The ceiling is nodeCount: not worked out again, on memory
				// that may have moved since.
				"--no-ceilings"}
		}
	}
	static := func(args ...string) func(*testing.T, *testCluster) []string {
		return func(*testing.T, *testCluster) []string { return args }
	}
	nodesStarting := func(t *testing.T, r *liveRun, _ *testCluster) {
		// Some started, most to come: the start-up loop is under way.
		r.waitUntil(t, "node processes", 2*time.Minute, func() bool { return len(r.nodeProcesses()) >= 3 })
	}
	// Two specs long enough not to share a worker (parallel.Batch).
	parallelSpecs := []string{"run", "--suite", "webhooks", "--parallel", "2",
		"--label-filter", "spec:ChainTimeoutBudget || spec:WebhookCallMetrics"}
	// A spec measuring propagation (on a plane) and one that is not.
	planeSpecs := []string{"run", "--suite", "webhooks", "--parallel", "2",
		"--label-filter", "spec:WebhookConfigurationPropagation || spec:ChainTimeoutBudget"}
	phases := []phase{
		{name: "cluster start", args: static(quickRun...), sig: syscall.SIGINT, code: 2, want: "interrupted by SIGINT during cluster start-up",
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "cluster start", time.Minute, r.clusterUp)
			}, forcedCode: 2}, // not forced: rolled back (0.1 s) before a second signal comes, mostly
		{name: fmt.Sprintf("start-up of %d nodes, serial run", nodeCount), args: nodeRun("1"), sig: syscall.SIGTERM, code: 2,
			want: "interrupted by SIGTERM during cluster start-up", at: nodesStarting, forced: true, forcedCode: 2, countNodes: true},
		{name: fmt.Sprintf("start-up of %d nodes beside parallel specs", nodeCount), args: nodeRun("2"), sig: syscall.SIGINT, code: 1,
			want: "interrupted by SIGINT: the run stopped early", at: nodesStarting, forced: true, forcedCode: 1, countNodes: true},
		{name: "reference installs", args: static("run", "--suite", "initializers", "--label-filter", "spec:InitializerConfigurationValidation"),
			env: []string{testhook.PauseEnv + "=" + testhook.ReferenceInstall}, sig: syscall.SIGHUP, code: 2,
			want: "interrupted by SIGHUP during cluster start-up", forced: true, forcedCode: 2, at: pausedAt},
		{name: "serial specs", args: static(append(slices.Clone(quickRun), "--parallel", "1")...), sig: syscall.SIGTERM, code: 1,
			want: "interrupted by SIGTERM: the run stopped early", forced: true, forcedCode: 1,
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "specs", 2*time.Minute, r.printed("running "))
				time.Sleep(300 * time.Millisecond)
			}},
		{name: "parallel specs", args: static(parallelSpecs...), sig: syscall.SIGINT, code: 1,
			want: "interrupted by SIGINT: the run stopped early", forced: true, forcedCode: 1,
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "two workers", 2*time.Minute, func() bool { return len(r.workerProcesses()) == 2 })
				time.Sleep(500 * time.Millisecond)
			}},
		// A propagation plane (a child process booting a control plane of
		// its own) starts beside the cluster: the signal comes while both
		// boot, then while a spec runs on the plane beside one on the
		// cluster.
		// Not forced: stopped in order, plane start-up ends in about 50 ms,
		// which a loaded machine's three signals can outlast (CI, 2026-11-29:
		// it ended after two). Whichever way it ends is checked.
		{name: "propagation plane start-up", args: static(planeSpecs...), sig: syscall.SIGTERM, code: 2,
			want: "interrupted by SIGTERM during cluster start-up", forcedCode: 2,
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "the plane's process", time.Minute, func() bool { return len(r.workerProcesses()) == 1 })
			}},
		{name: "specs beside a propagation plane", args: static(planeSpecs...), sig: syscall.SIGINT, code: 1,
			want: "interrupted by SIGINT: the run stopped early", forced: true, forcedCode: 1,
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				// The plane and a worker on each control plane.
				r.waitUntil(t, "the plane and two workers", 2*time.Minute, func() bool { return len(r.workerProcesses()) == 3 })
				time.Sleep(500 * time.Millisecond)
			}},
		{name: "report writing", args: static(quickRun...), env: []string{testhook.PauseEnv + "=" + testhook.Report}, sig: syscall.SIGTERM, code: 1,
			want: "interrupted by SIGTERM", forced: true, forcedCode: 1,
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "report writing", 2*time.Minute, r.writing)
			}},
		{name: "in-cluster follow", cluster: true, sig: syscall.SIGINT, code: 1, want: "interrupted by SIGINT: the run's pod published no reports",
			forced: true, forcedCode: 1,
			args: func(t *testing.T, c *testCluster) []string {
				return []string{"run", "--provider", "kubeconfig", "--kubeconfig", c.kubeconfig, "--in-cluster", "--image", "registry.example/run-conformance:v1",
					"--suite", "ordering"}
			},
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "the pod's output", 2*time.Minute, r.printed("its output follows"))
				time.Sleep(300 * time.Millisecond)
			},
			check: inClusterRunsGone},
		{name: "matrix", cluster: true, sig: syscall.SIGINT, code: 2, want: "interrupted by SIGINT", forced: true, forcedCode: 1,
			args: func(t *testing.T, c *testCluster) []string {
				return []string{"matrix", "--dir", filepath.Join(t.TempDir(), "matrix"), "--image", "registry.example/run-conformance:v1",
					"--target", "name=follow,kubeconfig=" + c.kubeconfig, "--target", "name=stuck,kubeconfig=" + c.hanging, "--parallel", "2"}
			},
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "the followed target", 2*time.Minute, r.printed("[follow] pod "))
				time.Sleep(300 * time.Millisecond)
			},
			check: func(t *testing.T, r *liveRun, c *testCluster, signals int) {
				inClusterRunsGone(t, r, c, signals)
				// The target whose cluster does not answer stopped at the
				// signal, not at its probe's timeout.
				if stdout, _ := r.output(); signals == 1 && !strings.Contains(stdout, "[stuck] run-conformance: interrupted by SIGINT during set-up") {
					t.Errorf("the stuck target did not stop at the signal:\n%s", stdout)
				}
			}},
		// Not forced: cleanup stops waiting for deletions at once (0.03 s).
		{name: "cleanup", cluster: true, sig: syscall.SIGINT, code: 1, want: "interrupted by SIGINT: cleanup stopped", forcedCode: 1,
			args: func(t *testing.T, c *testCluster) []string {
				return []string{"cleanup", "--kubeconfig", c.kubeconfig, "--run", c.heldRun(t)}
			},
			at: func(t *testing.T, r *liveRun, _ *testCluster) {
				r.waitUntil(t, "the sweep", time.Minute, r.printed("deleting namespaces/"))
				time.Sleep(300 * time.Millisecond)
			}},
	}
	var c *testCluster
	var cerr error
	for _, p := range phases {
		for _, signals := range []int{1, 3} {
			name := p.name + "/one signal"
			if signals == 3 {
				name = p.name + "/three signals"
			}
			t.Run(name, func(t *testing.T) {
				if p.cluster && c == nil && cerr == nil {
					// One for every phase that needs one, stopped at the end.
					c, cerr = startTestCluster(top)
				}
				if p.cluster && cerr != nil {
					t.Fatal(cerr)
				}
				started := time.Now()
				marker := filepath.Join(t.TempDir(), "paused")
				r := startRun(t, append(slices.Clone(p.env), testhook.PausedEnv+"="+marker), p.args(t, c)...)
				var nodes *nodeCounter
				if p.countNodes {
					nodes = r.countNodes()
				}
				p.at(t, r, c)
				at := time.Since(started)
				ports := listeningPorts(r.processes())
				seq := []syscall.Signal{p.sig}
				if signals == 3 {
					// Never the same signal twice in a row: the kernel and
					// Go's runtime each merge a signal still pending.
					seq = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT}
				}
				var first, last time.Time
				sent, nodesAtSignal := 0, 0
				if nodes != nil {
					nodesAtSignal = len(r.nodeProcesses())
				}
				for n, s := range seq {
					at, ok := r.signal(t, s, n+1)
					if !ok {
						break // it ended
					}
					sent++
					last = at
					if first.IsZero() {
						first = at
					}
				}
				code := r.wait(t, stop+time.Minute)
				stdout, stderr := r.output()
				took := r.ended.Sub(first)
				switch {
				case signals == 1:
					if code != p.code {
						t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, p.code, stdout, stderr)
					}
					r.assertOneLine(t, p.want)
					if took > stop {
						t.Errorf("stopped %.1fs after the signal, over the interruptStop bound (%s)", took.Seconds(), stop)
					}
					t.Logf("%s: in the phase after %.1fs, %d port(s); one %s: stopped in order in %.2fs (bound interruptStop %s)",
						p.name, at.Seconds(), len(ports), interrupt.SignalName(p.sig), took.Seconds(), stop)
				default:
					afterThird := r.ended.Sub(last)
					if sent == 3 && afterThird > forceWithin {
						// As the harness notes for its timing specs: on a
						// machine this busy the bound says little.
						if late := busy.Window(last, r.ended).Max; late > starved {
							t.Logf("exited %.2fs after the third signal, over %s, on a busy machine: this test's own wake-ups came up to %s late (bound harnessStarved %s)",
								afterThird.Seconds(), forceWithin, late, starved)
						} else {
							t.Errorf("exited %.2fs after the third signal, over %s", afterThird.Seconds(), forceWithin)
						}
					}
					forcedLine := "interrupted a third time (SIGINT)"
					if p.forced || strings.Contains(stderr, forcedLine) {
						if sent < 3 {
							t.Fatalf("ended after %d signal(s), before the third could be sent; stderr:\n%s", sent, stderr)
						}
						if code != p.forcedCode {
							t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, p.forcedCode, stdout, stderr)
						}
						r.assertOneLine(t, forcedLine)
						t.Logf("%s: three signals over %.2fs: exited %.2fs after the third", p.name, last.Sub(first).Seconds(), afterThird.Seconds())
					} else {
						// It stopped in order before the third (or the third
						// came as it was exiting): with its in-order code,
						// not killed by a signal taken as it exited.
						if code != p.code {
							t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, p.code, stdout, stderr)
						}
						r.assertOneLine(t, "interrupted by SIGINT")
						t.Logf("%s: stopped in order %.2fs after the first signal, %d of 3 signal(s) sent before it ended", p.name, took.Seconds(), sent)
					}
				}
				// Children (nodes, workers, targets' runs) notice at once.
				for time.Since(r.ended) < 15*time.Second && len(r.processes()) > 0 {
					time.Sleep(20 * time.Millisecond)
				}
				t.Logf("every process of the run gone within %.2fs of its exit", time.Since(r.ended).Seconds())
				r.assertNothingLeft(t, ports)
				if nodes != nil {
					most := nodes.stop()
					t.Logf("%d of %d node processes at the signal, at most %d in all", nodesAtSignal, nodeCount, most)
					// One may be starting as the signal comes, a few more
					// between fork and exec when counted.
					if most > nodesAtSignal+4 {
						t.Errorf("%d node(s) started after the signal: the start-up went on", most-nodesAtSignal)
					}
				}
				if p.check != nil {
					p.check(t, r, c, signals)
				}
			})
		}
	}
}

// manyNodes is as many hollow nodes as this machine's ceiling allows
// (42 on 2 CPUs), at most 48.
func manyNodes() int {
	l := ceilings.Load{ControlPlane: true, APIServers: 1, Workers: 2, ClusterStart: bounds.Defaults().ClusterStart.Duration}
	return max(1, min(48, ceilings.Read().Ceiling(ceilings.Nodes, l).Max))
}

// signal sends s, the nth, and waits until the command has taken it: it
// acknowledges the first two ("interrupt N of 3"), so that a next one is
// not merged with it (the kernel and Go's runtime each merge a signal that
// comes again before the first is taken); the third is taken once no
// longer pending. It returns when it sent it, false if the process had
// ended.
func (r *liveRun) signal(t *testing.T, s syscall.Signal, n int) (time.Time, bool) {
	t.Helper()
	select {
	case <-r.done:
		return time.Time{}, false
	default:
	}
	pid := r.cmd.Process.Pid
	sent := time.Now()
	if err := syscall.Kill(pid, s); err != nil {
		return time.Time{}, false
	}
	if n >= 3 {
		for deadline := time.Now().Add(5 * time.Second); pending(pid, s) && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		return sent, true
	}
	ack := fmt.Sprintf("interrupt %d of 3 (%s)", n, interrupt.SignalName(s))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		stdout, _ := r.output()
		if slices.ContainsFunc(strings.Split(stdout, "\n"), func(l string) bool { return strings.HasPrefix(l, ack) }) {
			return sent, true
		}
		select {
		case <-r.done:
			return sent, true
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("signal %d (%s) not acknowledged within 10s", n, interrupt.SignalName(s))
		}
	}
}

// pending says whether s waits for delivery to pid (any of its threads).
func pending(pid int, s syscall.Signal) bool {
	bit := uint64(1) << (uint(s) - 1)
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	files = append(files, fmt.Sprintf("/proc/%d/status", pid))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || (k != "ShdPnd" && k != "SigPnd") {
				continue
			}
			if mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && mask&bit != 0 {
				return true
			}
		}
	}
	return false
}

// nodeProcesses are the run's hollow kubelets.
func (r *liveRun) nodeProcesses() []int {
	return r.withEnv("ADMISSION_CONFORMANCE_CHILD=hollow-node")
}

// workerProcesses are the run's parallel workers.
func (r *liveRun) workerProcesses() []int {
	var out []int
	for _, pid := range r.processes() {
		// `run --options FILE`, its file in the parallel run's work dir.
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		args := strings.Split(string(cmdline), "\x00")
		if i := slices.Index(args, "--options"); i >= 0 && i+1 < len(args) && strings.Contains(args[i+1], rundir.ParallelPrefix) {
			out = append(out, pid)
		}
	}
	return out
}

func (r *liveRun) withEnv(entry string) []int {
	var out []int
	for _, pid := range r.processes() {
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if slices.Contains(strings.Split(string(env), "\x00"), entry) {
			out = append(out, pid)
		}
	}
	return out
}

// pausedAt waits until the run pauses at its testhook point.
func pausedAt(t *testing.T, r *liveRun, _ *testCluster) {
	marker := ""
	for _, e := range r.cmd.Env {
		if v, ok := strings.CutPrefix(e, testhook.PausedEnv+"="); ok {
			marker = v
		}
	}
	r.waitUntil(t, "the pause", 2*time.Minute, func() bool { _, err := os.Stat(marker); return err == nil })
	time.Sleep(200 * time.Millisecond)
}

// nodeCounter samples how many hollow kubelets a run has.
type nodeCounter struct {
	done chan struct{}
	most chan int
}

func (r *liveRun) countNodes() *nodeCounter {
	n := &nodeCounter{done: make(chan struct{}), most: make(chan int, 1)}
	go func() {
		most := 0
		for {
			most = max(most, len(r.nodeProcesses()))
			select {
			case <-n.done:
				n.most <- most
				return
			case <-r.done:
				n.most <- most
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return n
}

func (n *nodeCounter) stop() int {
	close(n.done)
	return <-n.most
}

// testCluster is an embedded cluster in this process, for the commands
// that need one to talk to (in-cluster runs, matrix, cleanup), and a
// server that answers nothing.
type testCluster struct {
	kubeconfig string
	hanging    string // a kubeconfig of a server that never answers
	client     kubernetes.Interface
	config     *rest.Config // the admin's
}

func startTestCluster(top *testing.T) (*testCluster, error) {
	log, err := os.Create(filepath.Join(top.TempDir(), "components.log"))
	if err != nil {
		return nil, err
	}
	logs.RedirectComponents(log)
	started := time.Now()
	cl, err := embedded.New(embedded.WithBaseDir(top.TempDir()), embedded.WithComponentLog(log)).Start(context.Background())
	if err != nil {
		log.Close()
		return nil, err
	}
	c := &testCluster{kubeconfig: cl.(*embedded.Cluster).Kubeconfig(), config: cl.RESTConfig()}
	fakeCtx, cancel := context.WithCancel(context.Background())
	hold := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	top.Cleanup(func() {
		cancel()
		close(hold)
		srv.Close()
		_ = cl.Stop(context.Background())
		log.Close()
	})
	top.Logf("test cluster ready in %.1fs", time.Since(started).Seconds())
	if c.client, err = kubernetes.NewForConfig(cl.RESTConfig()); err != nil {
		return nil, err
	}
	// The cluster has no kubelet: the in-cluster runs' pods are made to
	// run by hand.
	go c.runPods(fakeCtx)
	c.hanging = filepath.Join(top.TempDir(), "hanging.kubeconfig")
	err = os.WriteFile(c.hanging, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`, srv.URL)), 0o600)
	return c, err
}

// runPods makes the in-cluster runs' pods run: no kubelet here to do it.
func (c *testCluster) runPods(ctx context.Context) {
	for ctx.Err() == nil {
		pods, err := c.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=run-conformance"})
		if err == nil {
			for _, p := range pods.Items {
				if p.Status.Phase == corev1.PodRunning || p.DeletionTimestamp != nil {
					continue
				}
				p.Status.Phase = corev1.PodRunning
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: clusterrun.ContainerName, Image: p.Spec.Containers[0].Image, Ready: true,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}}
				_, _ = c.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, &p, metav1.UpdateOptions{})
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// heldRun leaves a run's objects in the cluster whose namespace cannot go
// (a ConfigMap in it holds a finalizer), so cleanup waits; the finalizer
// is dropped when the test ends. It returns the run ID.
func (c *testCluster) heldRun(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	id := harness.NewRunID()
	ns := "signals-held-" + id
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{harness.RunLabel: id}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const finalizer = "admission-conformance.io/test-hold"
	if _, err := c.client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held",
		Finalizers: []string{finalizer}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.client.CoreV1().ConfigMaps(ns).Patch(ctx, "held", types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`), metav1.PatchOptions{})
		_ = c.client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	})
	return id
}

// inClusterRunsGone: no in-cluster run is left in the cluster; after a
// third signal, the cleanup command the run printed removes it.
func inClusterRunsGone(t *testing.T, r *liveRun, c *testCluster, signals int) {
	t.Helper()
	ctx := context.Background()
	runs, err := clusterrun.List(ctx, c.client, "")
	if err != nil {
		t.Fatal(err)
	}
	if signals == 3 && len(runs) > 0 {
		// Exiting at once, it names the cleanup that removes its run (a
		// matrix: its target's run does, prefixed).
		stdout, stderr := r.output()
		for _, run := range runs {
			if cmd := "'run-conformance cleanup --kubeconfig " + c.kubeconfig + " --run " + run.ID + "'"; !strings.Contains(stdout+stderr, cmd) {
				t.Errorf("the run left %s and does not say %s:\n%s%s", run.ID, cmd, stdout, stderr)
			}
			res := runCLI(t, "cleanup", "--kubeconfig", c.kubeconfig, "--run", run.ID)
			res.mustExit(t, 0)
		}
		if runs, err = clusterrun.List(ctx, c.client, ""); err != nil {
			t.Fatal(err)
		}
	}
	for _, run := range runs {
		t.Errorf("in-cluster run %s left in the cluster: %v", run.ID, run.Objects)
	}
	nss, err := c.client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: harness.RunLabel})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		if !strings.HasPrefix(ns.Name, "signals-held-") {
			t.Errorf("namespace %s of a run left in the cluster", ns.Name)
		}
	}
}
