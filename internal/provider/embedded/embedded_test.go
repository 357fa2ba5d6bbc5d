package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/internal/logs"
)

func TestMain(m *testing.M) {
	logs.RedirectComponents(discard{})
	os.Exit(m.Run())
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// start boots a cluster in a fresh base dir and checks on stop that the base
// dir is left empty.
func start(t *testing.T, opts ...Option) *Cluster {
	t.Helper()
	base := t.TempDir()
	c, err := New(append([]Option{WithBaseDir(base)}, opts...)...).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(context.Background()); err != nil {
			t.Error(err)
		}
		assertEmpty(t, base)
	})
	return c.(*Cluster)
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind: %s", filepath.Join(dir, e.Name()))
	}
}

func TestSingleAPIServerClusterIsUsable(t *testing.T) {
	c := start(t)
	client := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx := context.Background()

	// The controller manager made the default ServiceAccount.
	if _, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("default ServiceAccount: %v", err)
	}
	// Metrics are readable and the audit log is written.
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil || !strings.Contains(string(raw), "apiserver_admission_controller_admission_duration_seconds") {
		t.Fatalf("metrics: %v (admission metrics present: %t)", err, strings.Contains(string(raw), "apiserver_admission_controller_admission_duration_seconds"))
	}
	if got := c.AuditLogPaths(); len(got) != 1 {
		t.Fatalf("audit logs: %v", got)
	} else if info, err := os.Stat(got[0]); err != nil || info.Size() == 0 {
		t.Fatalf("audit log %s empty or missing: %v", got[0], err)
	}
	caps := c.Capabilities()
	for _, want := range []features.Name{features.Scheduler, features.ControllerManager, features.AuditLog} {
		if !caps.Has(want) {
			t.Errorf("capability %s missing", want)
		}
	}
	if caps.Has(features.MultipleAPIServers) {
		t.Error("one apiserver claims MultipleAPIServers")
	}
	served, err := mutatingpolicy.Served(client.Discovery())
	if err != nil {
		t.Fatal(err)
	}
	if caps.Has(features.MutatingAdmissionPolicy) != served {
		t.Errorf("MutatingAdmissionPolicy declared %t, its API served %t", caps.Has(features.MutatingAdmissionPolicy), served)
	}
	if !strings.HasPrefix(filepath.Base(c.Dir()), DirPrefix) {
		t.Errorf("run dir %s lacks prefix %s", c.Dir(), DirPrefix)
	}
}

func TestReplicasShareOneStoreAndTheLoadBalancerReachesAll(t *testing.T) {
	c := start(t, WithAPIServers(3), WithoutScheduler(), WithoutControllerManager())
	replicas := c.ReplicaConfigs()
	if len(replicas) != 3 {
		t.Fatalf("%d replica configs", len(replicas))
	}
	hosts := map[string]bool{}
	for _, r := range replicas {
		hosts[r.Host] = true
	}
	if len(hosts) != 3 {
		t.Fatalf("replicas are not distinct: %v", hosts)
	}
	ctx := context.Background()
	ns := "shared-" + time.Now().Format("150405")
	create := kubernetes.NewForConfigOrDie(replicas[0])
	if _, err := create.CoreV1().Namespaces().Create(ctx, namespace(ns), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, r := range append(replicas, c.RESTConfig()) {
		if _, err := kubernetes.NewForConfigOrDie(r).CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("config %d does not see the namespace: %v", i, err)
		}
	}
	if !c.Capabilities().Has(features.MultipleAPIServers) || c.Capabilities().Has(features.Scheduler) {
		t.Errorf("capabilities: %v", c.Capabilities().Sorted())
	}
	if front := c.RESTConfig().Host; hosts[front] {
		t.Errorf("front door %s is a replica, not the load balancer", front)
	}
}

func TestFailedStartRollsBackAndNamesTheComponent(t *testing.T) {
	base := t.TempDir()
	_, err := New(WithBaseDir(base), WithAPIServerArgs("--no-such-flag=1")).Start(context.Background())
	if err == nil {
		t.Fatal("start with an unknown apiserver flag succeeded")
	}
	if !strings.Contains(err.Error(), "kube-apiserver[0]") {
		t.Errorf("error does not name the component: %v", err)
	}
	assertEmpty(t, base)
}

func TestStartHonoursCancellation(t *testing.T) {
	base := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(WithBaseDir(base)).Start(ctx)
	if err == nil {
		t.Fatal("start with a cancelled context succeeded")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error is not a cancellation: %v", err)
	}
	assertEmpty(t, base)
}

// A cluster that does not serve the MutatingAdmissionPolicy API (a release
// before 1.36, or one where the feature gate and --runtime-config turn it
// off, as here) does not
// declare the feature, so its specs are reported not-supported.
func TestMutatingAdmissionPolicyDeclaredOnlyWhereServed(t *testing.T) {
	c := start(t, WithoutScheduler(), WithoutControllerManager(), WithAPIServerArgs(
		"--feature-gates=MutatingAdmissionPolicy=false",
		"--runtime-config=admissionregistration.k8s.io/v1/mutatingadmissionpolicies=false,admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings=false"))
	if c.Capabilities().Has(features.MutatingAdmissionPolicy) {
		t.Errorf("declares MutatingAdmissionPolicy with its API switched off: %v", c.Capabilities().Sorted())
	}
}
