package cli

// Tests against real kind clusters. They run only under `make test-kind`
// (ADMISSION_CONFORMANCE_KIND_IMAGE names the node image) with a Docker
// engine and that image present; otherwise they are skipped and say why.

import (
	"context"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	clusternodes "github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	ociimage "github.com/admission-conformance/admission-conformance/internal/image"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

const kindImageEnv = "ADMISSION_CONFORMANCE_KIND_IMAGE"

// kindImage returns the node image, or skips the test saying what is missing.
func kindImage(t *testing.T) string {
	t.Helper()
	image := os.Getenv(kindImageEnv)
	if image == "" {
		t.Skipf("kind tests need %s=<node image> (make test-kind)", kindImageEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := kind.CheckDocker(ctx); err != nil {
		t.Skipf("kind tests need a Docker engine: %v", err)
	}
	if err := kind.CheckImage(ctx, image); err != nil {
		t.Skipf("kind tests need the node image: %v", err)
	}
	return image
}

func kindTopologies() []string {
	if v := os.Getenv("ADMISSION_CONFORMANCE_KIND_TOPOLOGIES"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"single", "ha"}
}

// TestKindRunsAllSuites runs every suite on kind clusters the run creates
// and deletes: nothing fails, HA measures propagation on every replica, and
// no cluster is left.
func TestKindRunsAllSuites(t *testing.T) {
	image := kindImage(t)
	for _, topology := range kindTopologies() {
		t.Run(topology, func(t *testing.T) {
			reports := t.TempDir()
			keepReportsOnFailure(t, reports, "reports")
			started := time.Now()
			r := runCLI(t, "run", "--provider", "kind", "--kind-topology", topology, "--kind-image", image,
				"--report-dir", reports, "--bound", "clusterStart=10m")
			t.Logf("kind %s: full run %.0fs, exit %d\n%s", topology, time.Since(started).Seconds(), r.code, tail(r.stdout, 40))
			res := readResults(t, reports)
			errorFailedCases(t, res)
			if r.code != 0 {
				t.Fatalf("exit %d; stderr: %s", r.code, r.stderr)
			}
			if res.Cluster.Provider != kind.Name || res.Summary.Passed == 0 {
				t.Fatalf("cluster %+v, summary %+v", res.Cluster, res.Summary)
			}
			// The reference plugin host runs in the node image's kubelet:
			// every plugin case runs on a real node, none is not supported.
			expectStates(t, res, append(append([]string{}, failClosedSpecs...), pluginContractSpecs...), results.Passed, "")
			logNotSupported(t, topology, res)
			errorNotSupportedOnCreatedKind(t, res)
			if topology == "ha" {
				replicas := map[string]bool{}
				for _, s := range res.Specs {
					for _, m := range s.Measurements {
						if rep := m.Labels["replica"]; rep != "" {
							replicas[rep] = true
						}
					}
				}
				if len(replicas) < 3 {
					t.Errorf("HA run measured %d replica(s), want 3: %v", len(replicas), replicas)
				}
			}
			if left, _ := kind.Leftovers(kind.DefaultLedgerDir()); len(left) > 0 {
				t.Errorf("kind clusters left behind: %v", left)
			}
		})
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// kindCluster starts a kind cluster for the kubeconfig-provider tests and
// writes its kubeconfig; it is deleted when the test ends.
func kindCluster(t *testing.T, image string, topology kind.Topology) (kubeconfigPath, gateway string, c cluster.Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	started := time.Now()
	c, err := kind.New(kind.WithNodeImage(image), kind.WithTopology(topology)).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kind %s cluster up in %.1fs", topology, time.Since(started).Seconds())
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, c.(interface{ Kubeconfig() []byte }).Kubeconfig(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, c.(cluster.WebhookHost).WebhookHost(), c
}

// waitUnchanged waits until the cluster holds exactly what before held
// (namespace deletion finishes asynchronously) and fails listing the
// difference if it never does.
func waitUnchanged(t *testing.T, c cluster.Cluster, before kubeconfig.Inventory) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		after, err := kubeconfig.TakeInventory(context.Background(), c.RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		added, removed := before.Diff(after)
		if len(added) == 0 && len(removed) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster changed: added %v, removed %v", added, removed)
		}
		time.Sleep(2 * time.Second)
	}
}

// TestKubeconfigProviderOnKind runs the suites through the kubeconfig
// provider against a kind cluster: the run passes and leaves the cluster as
// it found it; a run killed with SIGKILL leaves labelled objects that do not
// get in the way of other workloads, and `cleanup` removes them all.
func TestKubeconfigProviderOnKind(t *testing.T) {
	image := kindImage(t)
	path, gateway, c := kindCluster(t, image, kind.Single)
	ctx := context.Background()
	settle(t, c)
	before, err := kubeconfig.TakeInventory(ctx, c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inventory: %d objects", len(before))

	t.Run("run leaves the cluster unchanged", func(t *testing.T) {
		reports := t.TempDir()
		keepReportsOnFailure(t, reports, "reports")
		r := runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", path, "--webhook-host", gateway,
			"--suite", "ordering,webhooks", "--report-dir", reports)
		// Whatever the specs say, the cluster must be as it was.
		waitUnchanged(t, c, before)
		res := readResults(t, reports)
		errorFailedCases(t, res)
		if r.code != 0 || res.Summary.Passed == 0 {
			t.Errorf("exit %d, summary %+v; stderr: %s\n%s", r.code, res.Summary, r.stderr, tail(r.stdout, 30))
		}
		if !strings.Contains(r.stdout, "preflight: RBAC allows") {
			t.Errorf("no preflight report in the output:\n%s", tail(r.stdout, 200))
		}
	})

	t.Run("fake webhooks relayed by a pod of --plugin-image", func(t *testing.T) {
		// What `run-conformance image` writes, but of this test binary,
		// which is the CLI only with asMain set.
		ref := "admission-conformance/run-conformance:kind-test"
		archive := filepath.Join(t.TempDir(), "harness.tar")
		exe, _ := os.Executable()
		files, err := ociimage.Binary(exe, "/usr/local/bin/run-conformance")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ociimage.WriteFile(archive, ociimage.WithRef(ref), ociimage.WithFiles(files...),
			ociimage.WithEntrypoint("/usr/local/bin/run-conformance"), ociimage.WithEnv(asMain+"=1")); err != nil {
			t.Fatal(err)
		}
		loadImage(t, c.(interface{ Name() string }).Name(), archive)
		reports := t.TempDir()
		keepReportsOnFailure(t, reports, "reports")
		r := runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", path, "--plugin-image", ref,
			"--suite", "webhooks", "--report-dir", reports)
		waitUnchanged(t, c, before)
		if r.code == 2 {
			t.Fatalf("exit 2: %s\n%s", r.stderr, tail(r.stdout, 30))
		}
		res := readResults(t, reports)
		for _, s := range res.Specs {
			if s.State == results.Failed {
				t.Errorf("%s/%s failed: %s", s.Suite, s.ShortName, s.Message)
			}
			if s.State == results.NotSupported && strings.Contains(s.Message, "cannot reach") {
				t.Errorf("%s/%s not supported through the relay: %s", s.Suite, s.ShortName, s.Message)
			}
		}
		if r.code != 0 || res.Summary.Passed == 0 || !strings.Contains(r.stdout, "relay: ready") {
			t.Errorf("exit %d, summary %+v; stderr: %s\n%s", r.code, res.Summary, r.stderr, tail(r.stdout, 30))
		}
	})

	t.Run("SIGKILL then cleanup", func(t *testing.T) {
		client, err := kubernetes.NewForConfig(c.RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		exe, _ := os.Executable()
		cmd := exec.Command(exe, "run", "--provider", "kubeconfig", "--kubeconfig", path, "--webhook-host", gateway,
			"--suite", "webhooks", "--report-dir", t.TempDir())
		cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		// Kill it once it has registered a webhook configuration.
		deadline := time.Now().Add(3 * time.Minute)
		for {
			list, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{LabelSelector: harness.RunLabel})
			if err == nil && len(list.Items) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the run registered no webhook configuration within 3 minutes")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		left, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: harness.RunLabel})
		if err != nil || len(left.Items) == 0 {
			t.Fatalf("a killed run left no labelled namespace (%v): nothing to test cleanup on", err)
		}
		// The killed run's webhooks are scoped: a workload elsewhere is admitted.
		ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "workload-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("a namespace outside the harness's was not admitted after the kill: %v", err)
		}
		for _, obj := range []string{"a", "b"} {
			if _, err := client.CoreV1().ConfigMaps(ns.Name).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: obj}}, metav1.CreateOptions{}); err != nil {
				t.Errorf("a configmap outside the harness's namespaces was not admitted after the kill: %v", err)
			}
		}
		if err := client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}

		r := runCLI(t, "cleanup", "--kubeconfig", path)
		if r.code != 0 || !strings.Contains(r.stdout, "removed") {
			t.Fatalf("cleanup: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		t.Logf("cleanup said:\n%s", r.stdout)
		waitUnchanged(t, c, before)
		r = runCLI(t, "cleanup", "--kubeconfig", path)
		if r.code != 0 || !strings.Contains(r.stdout, "nothing labelled") {
			t.Fatalf("second cleanup: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

// settle waits until the new cluster stops creating objects on its own
// (controllers' first pass), so the inventory compares like with like.
func settle(t *testing.T, c cluster.Cluster) {
	t.Helper()
	var last kubeconfig.Inventory
	for i := 0; i < 60; i++ {
		inv, err := kubeconfig.TakeInventory(context.Background(), c.RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		if last != nil {
			if a, r := last.Diff(inv); len(a) == 0 && len(r) == 0 {
				return
			}
		}
		last = inv
		time.Sleep(5 * time.Second)
	}
	t.Fatal("the cluster kept changing for 5 minutes")
}

// TestCleanupBadInput: cleanup's own input errors are one line, exit 2.
func TestCleanupBadInput(t *testing.T) {
	r := runCLI(t, "cleanup", "--kubeconfig", filepath.Join(t.TempDir(), "missing"))
	if r.code != 2 || strings.Count(strings.TrimRight(r.stderr, "\n"), "\n") > 0 || !strings.Contains(r.stderr, "kubeconfig") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, "run", "--kind-image", "x")
	if r.code != 2 || !strings.Contains(r.stderr, "go with --provider kind") {
		t.Fatalf("kind flag with embedded: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, "run", "--provider", "kind", "--kind-topology", "huge")
	if r.code != 2 || !strings.Contains(r.stderr, "unknown kind topology") {
		t.Fatalf("bad topology: exit %d, stderr %q", r.code, r.stderr)
	}
}

// loadImage imports an image archive into every node of the kind cluster
// (what `kind load image-archive` does), for pods that must not pull.
func loadImage(t *testing.T, clusterName, archive string) {
	t.Helper()
	nodes, err := kindcluster.NewProvider(kindcluster.ProviderWithDocker()).ListNodes(clusterName)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		f, err := os.Open(archive)
		if err != nil {
			t.Fatal(err)
		}
		err = nodeutils.LoadImageArchive(n, f)
		f.Close()
		if err != nil {
			t.Fatalf("load %s into %s: %v", archive, n, err)
		}
	}
}

// TestCleanupDeletesKindClustersOfKilledRuns: a run killed (SIGKILL) while
// kind creates its cluster leaves containers behind; `cleanup --kind`
// deletes them and forgets the cluster.
func TestCleanupDeletesKindClustersOfKilledRuns(t *testing.T) {
	image := kindImage(t)
	state := t.TempDir() // the ledger lives under XDG_STATE_HOME
	env := append(os.Environ(), asMain+"=1", "TMPDIR="+t.TempDir(), "XDG_STATE_HOME="+state)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "run", "--provider", "kind", "--kind-image", image, "--report-dir", t.TempDir())
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ledger := filepath.Join(state, "admission-conformance", "kind-clusters")
	var name string
	deadline := time.Now().Add(2 * time.Minute)
	for name == "" || !nodesExist(t, name) {
		if names, _ := kind.Leftovers(ledger); len(names) == 1 {
			name = names[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no kind cluster being created within 2 minutes (ledger: %q)", name)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !nodesExist(t, name) {
		t.Fatalf("the killed run left no node of %s: nothing to clean", name)
	}
	c := exec.Command(exe, "cleanup", "--kind")
	c.Env = env
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "deleted kind cluster "+name) {
		t.Fatalf("cleanup --kind: %v\n%s", err, out)
	}
	if nodesExist(t, name) {
		t.Errorf("cleanup --kind left nodes of %s", name)
	}
	if left, _ := kind.Leftovers(ledger); len(left) > 0 {
		t.Errorf("ledger still lists %v", left)
	}
}

func nodesExist(t *testing.T, name string) bool {
	t.Helper()
	nodes, err := kindcluster.NewProvider(kindcluster.ProviderWithDocker()).ListNodes(name)
	if err != nil {
		t.Fatal(err)
	}
	return len(nodes) > 0
}

// harnessArchive writes what `run-conformance image` writes, but of this
// test binary, which is the CLI only with asMain set.
func harnessArchive(t *testing.T, ref string) string {
	t.Helper()
	archive := filepath.Join(t.TempDir(), "harness.tar")
	exe, _ := os.Executable()
	files, err := ociimage.Binary(exe, "/usr/local/bin/run-conformance")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ociimage.WriteFile(archive, ociimage.WithRef(ref), ociimage.WithFiles(files...), ociimage.WithUser("65532:65532"),
		ociimage.WithEntrypoint("/usr/local/bin/run-conformance"), ociimage.WithEnv(asMain+"=1")); err != nil {
		t.Fatal(err)
	}
	return archive
}

// checkInClusterReports: the report dir came back whole and nothing failed.
func checkInClusterReports(t *testing.T, r cliResult, dir string) {
	t.Helper()
	for _, f := range reports.Files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("report %s not copied back: %v", f, err)
		}
	}
	res := readResults(t, dir)
	errorFailedCases(t, res)
	if r.code != 0 || res.Summary.Passed == 0 {
		t.Errorf("exit %d, summary %+v; stderr: %s\n%s", r.code, res.Summary, r.stderr, tail(r.stdout, 40))
	}
}

// TestInClusterOnKind runs the harness in the cluster (run --in-cluster).
// On a kind cluster of each topology, the in-cluster run gives every case
// the state a local run of the same selection on the same cluster gave it
// (but for the specs of features an in-cluster run does not have), and
// leaves the cluster as it found it. Through the kubeconfig provider, the
// cluster is left as it was found, and a run whose client was killed goes
// on, is fetched with `results` and removed by `cleanup`.
func TestInClusterOnKind(t *testing.T) {
	image := kindImage(t)
	ref := "admission-conformance/run-conformance:kind-test"
	archive := harnessArchive(t, ref)
	for _, topology := range kindTopologies() {
		t.Run("kind "+topology+": the local run's case states, nothing left", func(t *testing.T) {
			_, _, c := kindCluster(t, image, kind.Topology(topology))
			name := c.(interface{ Name() string }).Name()
			local := t.TempDir()
			keepReportsOnFailure(t, local, "local")
			started := time.Now()
			r := runCLI(t, "run", "--provider", "kind", "--kind-cluster", name, "--report-dir", local)
			t.Logf("local run on kind %s: %.0fs, exit %d\n%s", topology, time.Since(started).Seconds(), r.code, tail(r.stdout, 3))
			if r.code != 0 {
				if r.code == 1 {
					errorFailedCases(t, readResults(t, local))
				}
				t.Fatalf("the local run failed: exit %d\n%s%s", r.code, tail(r.stdout, 40), r.stderr)
			}
			settle(t, c)
			before, err := kubeconfig.TakeInventory(context.Background(), c.RESTConfig())
			if err != nil {
				t.Fatal(err)
			}
			reports := t.TempDir()
			keepReportsOnFailure(t, reports, "reports")
			started = time.Now()
			r = runCLI(t, "run", "--provider", "kind", "--kind-cluster", name, "--in-cluster", "--image", ref, "--image-archive", archive,
				"--report-dir", reports)
			t.Logf("in-cluster run on kind %s: %.0fs, exit %d\n%s", topology, time.Since(started).Seconds(), r.code, tail(r.stdout, 8))
			checkInClusterReports(t, r, reports)
			if !strings.Contains(r.stdout, "removed the in-cluster run") {
				t.Errorf("the run was not removed:\n%s", tail(r.stdout, 20))
			}
			waitUnchanged(t, c, before)
			same, differences := compareInClusterWithLocal(readResults(t, local), readResults(t, reports))
			for _, d := range differences {
				t.Error(d)
			}
			t.Logf("%d cases in the same state as the local run", same)
		})
	}

	path, _, c := kindCluster(t, image, kind.Single)
	loadImage(t, c.(interface{ Name() string }).Name(), archive)
	settle(t, c)
	before, err := kubeconfig.TakeInventory(context.Background(), c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("kubeconfig provider leaves the cluster unchanged", func(t *testing.T) {
		reports := t.TempDir()
		keepReportsOnFailure(t, reports, "reports")
		r := runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", path, "--in-cluster", "--image", ref,
			"--suite", "ordering,webhooks", "--report-dir", reports)
		waitUnchanged(t, c, before)
		checkInClusterReports(t, r, reports)
		if !strings.Contains(r.stdout, "preflight: grant") || !strings.Contains(r.stdout, "preflight: RBAC allows") {
			t.Errorf("the preflight did not print the RBAC it grants:\n%s", tail(r.stdout, 200))
		}
	})
	t.Run("Ctrl-C mid-run: the pod stops, its reports come back, the run is removed", func(t *testing.T) {
		exe, _ := os.Executable()
		var out, errOut syncBuffer
		reports := t.TempDir()
		keepReportsOnFailure(t, reports, "reports")
		cmd := exec.Command(exe, "run", "--provider", "kubeconfig", "--kubeconfig", path, "--in-cluster", "--image", ref,
			"--suite", "ordering,webhooks", "--report-dir", reports)
		cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+t.TempDir())
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		deadline := time.Now().Add(3 * time.Minute)
		for !strings.Contains(out.String(), "PASSED") {
			if time.Now().After(deadline) {
				t.Fatalf("no spec passed within 3 minutes:\n%s", out.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if code != exitcode.Failed || !strings.Contains(errOut.String(), "interrupted by") {
			t.Errorf("exit %d (%v), want %d with the interruption said; stderr: %s\n%s", code, err, exitcode.Failed, errOut.String(), tail(out.String(), 30))
		}
		expectStoppedMidway(t, readResults(t, reports))
		if !strings.Contains(out.String(), "removed the in-cluster run") {
			t.Errorf("the run was not removed:\n%s", tail(out.String(), 20))
		}
		waitUnchanged(t, c, before)
	})
	t.Run("client killed, run fetched with results, then cleanup", func(t *testing.T) {
		exe, _ := os.Executable()
		var out syncBuffer
		cmd := exec.Command(exe, "run", "--provider", "kubeconfig", "--kubeconfig", path, "--in-cluster", "--image", ref,
			"--suite", "ordering", "--report-dir", t.TempDir())
		cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+t.TempDir())
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		var id string
		deadline := time.Now().Add(3 * time.Minute)
		for id == "" || !strings.Contains(out.String(), "its output follows") {
			if _, rest, ok := strings.Cut(out.String(), "in-cluster run "); ok && id == "" {
				id, _, _ = strings.Cut(rest, ":")
			}
			if time.Now().After(deadline) {
				t.Fatalf("the run's pod did not start within 3 minutes:\n%s", out.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		list := runCLI(t, "results", "--kubeconfig", path)
		if list.code != 0 || !strings.Contains(list.stdout, id) {
			t.Fatalf("results lists no run %s: exit %d\n%s%s", id, list.code, list.stdout, list.stderr)
		}
		reports := t.TempDir()
		keepReportsOnFailure(t, reports, "reports")
		r := runCLI(t, "results", "--kubeconfig", path, "--run", id, "--report-dir", reports, "--keep")
		checkInClusterReports(t, r, reports)
		// --keep left the ended run in the cluster: cleanup finds it.
		if after, err := kubeconfig.TakeInventory(context.Background(), c.RESTConfig()); err != nil {
			t.Fatal(err)
		} else if added, _ := before.Diff(after); len(added) == 0 {
			t.Fatalf("results --keep left nothing of run %s in the cluster", id)
		}
		clean := runCLI(t, "cleanup", "--kubeconfig", path)
		if clean.code != 0 || !strings.Contains(clean.stdout+clean.stderr, id) {
			t.Errorf("cleanup did not name run %s: exit %d\n%s%s", id, clean.code, clean.stdout, clean.stderr)
		}
		waitUnchanged(t, c, before)
	})
}

// syncBuffer is a buffer a child process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// logNotSupported lists the run's not-supported cases, each with its
// reason, for the closing notes of the kind work.
func logNotSupported(t *testing.T, topology string, res results.Results) {
	t.Helper()
	n := 0
	for _, c := range res.Specs {
		if c.State == results.NotSupported {
			n++
			t.Logf("kind %s: not supported: %s/%s: %s: %s", topology, c.Suite, c.ShortName, c.Name, c.Message)
		}
	}
	t.Logf("kind %s: %d case(s) not supported", topology, n)
}

// errorNotSupportedOnCreatedKind fails the test for every case of res, a run
// on a kind cluster the provider created from the harness's node image, that
// is not supported: the provider sets up everything the embedded cluster
// has. The one physical exception is a host that enforces AppArmor, whose
// nodes have no reason to reject a pod asking for a profile.
func errorNotSupportedOnCreatedKind(t *testing.T, res results.Results) {
	t.Helper()
	for _, c := range res.Specs {
		if c.State != results.NotSupported {
			continue
		}
		if c.ShortName == "KubeletRejectsAppArmorWithoutSupport" && strings.Contains(c.Message, clusternodes.AppArmorLabel+"=enforceable") {
			continue
		}
		t.Errorf("not supported on a kind cluster the provider created: %s/%s: %s: %s", c.Suite, c.ShortName, c.Name, c.Message)
	}
}

// The plugin specs on a real kubelet fail where its plugin host is broken
// (the hidden --node-fault, which the kind provider writes into the host's
// configuration on every node): a host that admits when a plugin fails
// fails the fail-closed specs only; one that admits what a plugin rejects
// fails the rejection specs only.
func TestNodePluginSpecsFailOnABrokenHostOnKind(t *testing.T) {
	image := kindImage(t)
	plugins := "spec:" + strings.Join(append(append([]string{}, failClosedSpecs...), pluginContractSpecs...), " || spec:")
	rejecting := []string{"NodePluginRejectionKeepsReasonAndMessage", "NodePluginAnyRejectionWins"}
	for _, tc := range []struct {
		fault      string
		fail, pass []string
		because    string
	}{
		{"plugins-fail-open", failClosedSpecs, pluginContractSpecs, "admitted"},
		{"plugins-reject-late", []string{"NodePluginRejectionKeepsReasonAndMessage", "NodePluginGarbageFailsClosed"},
			[]string{"NodePluginsAllAdmittingAdmits"}, "rejection took"},
		{"plugins-ignore-rejections", rejecting, append(append([]string{}, failClosedSpecs...),
			"NodePluginsAllAdmittingAdmits", "NodePluginsRunInParallel", "NodePluginSeesThePodUnchanged"), "admitted"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			reports := t.TempDir()
			keepReportsOnFailure(t, reports, "reports")
			r := runCLI(t, "run", "--provider", "kind", "--kind-image", image, "--report-dir", reports,
				"--node-fault", tc.fault, "--label-filter", plugins, "--bound", "clusterStart=10m")
			r.mustExit(t, 1)
			res := readResults(t, reports)
			expectStates(t, res, tc.fail, results.Failed, tc.because)
			expectStates(t, res, tc.pass, results.Passed, "")
			if left, _ := kind.Leftovers(kind.DefaultLedgerDir()); len(left) > 0 {
				t.Errorf("kind clusters left behind: %v", left)
			}
		})
	}
}

// errorFailedCases reports each failed case of a run by name and message,
// so a failing test says which case failed and why even when its output
// is cut and its report dir is gone.
func errorFailedCases(t *testing.T, res results.Results) {
	t.Helper()
	if failed := failedCases(res); failed != "" {
		t.Errorf("failed cases:\n%s", failed)
	}
}

// failedCases names res's failed cases with their messages.
func failedCases(res results.Results) string {
	var out []string
	for _, s := range res.Specs {
		if s.State == results.Failed {
			out = append(out, s.Suite+"/"+s.ShortName+": "+s.Name+": "+s.Message)
		}
	}
	return strings.Join(out, "\n")
}

// keepReportsOnFailure copies a run's report dir into the kind artifacts
// dir (KindArtifactsEnv, as make test-kind sets it) when the test fails:
// the test's temporary dirs are removed when it ends, and a failure on a
// real cluster is seldom reproduced at will.
func keepReportsOnFailure(t *testing.T, dir, what string) {
	t.Helper()
	root := os.Getenv(KindArtifactsEnv)
	if root == "" {
		return
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		dst := filepath.Join(root, "failed", strings.NewReplacer("/", "_", " ", "_", ":", "", "'", "").Replace(t.Name()), what)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Logf("keep reports: %v", err)
			return
		}
		if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
			t.Logf("keep reports of %s: %v", dir, err)
			return
		}
		t.Logf("reports kept in %s", dst)
	})
}
