package nodeset_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/internal/logs"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
)

func TestMain(m *testing.M) {
	nodeset.RunIfChild()
	logs.RedirectComponents(discard{})
	os.Exit(m.Run())
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestNodesRegisterRejectQuicklyAndLeaveNothing(t *testing.T) {
	noChildrenLeft := markChildren(t)
	base := t.TempDir()
	log, err := os.Create(filepath.Join(t.TempDir(), "components.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	started := time.Now()
	// node-1 is shaped as an upstream kubelet: no plugin host, its own
	// extended resource.
	plain := nodeset.DefaultSpec()
	plain.PluginHost = false
	plain.ExtendedResources = map[string]string{"example.com/gadget": "5"}
	c, err := embedded.New(embedded.WithBaseDir(base), embedded.WithNodeSpecs(nodeset.DefaultSpec(), plain),
		embedded.WithComponentLog(log), embedded.WithLogger(testr.NewWithOptions(t, testr.Options{Verbosity: 1}))).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster with 2 nodes ready and warm in %s (component log %s)", time.Since(started), log.Name())
	stopped := false
	defer func() {
		if !stopped {
			_ = c.Stop(context.Background())
		}
	}()

	names := c.Nodes()
	if len(names) != 2 {
		t.Fatalf("nodes: %+v", names)
	}
	if caps := names[0].Capabilities; !caps.Has(features.NodeAdmission) || !caps.Has(features.NodeAdmissionPlugins) {
		t.Errorf("node %s capabilities %v", names[0].Name, caps.Sorted())
	}
	if caps := names[1].Capabilities; !caps.Has(features.NodeAdmission) || caps.Has(features.NodeAdmissionPlugins) {
		t.Errorf("node %s (no plugin host) capabilities %v", names[1].Name, caps.Sorted())
	}
	if _, ok := c.(nodes.PluginHosts).NodePluginHost(names[1].Name); ok {
		t.Errorf("node %s has a plugin host", names[1].Name)
	}
	if caps := c.Capabilities(); !caps.Has(features.NodeAdmission) || !caps.Has(features.NodeAdmissionPlugins) {
		t.Errorf("cluster capabilities %v", caps.Sorted())
	}
	client := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx := context.Background()
	node, err := client.CoreV1().Nodes().Get(ctx, names[0].Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := node.Status.Allocatable[nodes.ExtendedResource]; q.Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("allocatable %s = %s, want 2", nodes.ExtendedResource, q.String())
	}
	if v := node.Labels[nodes.AppArmorLabel]; v != "unavailable" && v != "enforceable" {
		t.Errorf("label %s = %q", nodes.AppArmorLabel, v)
	}
	if node.Labels[nodes.HollowLabel] != "true" {
		t.Errorf("node %s lacks label %s", node.Name, nodes.HollowLabel)
	}
	other, err := client.CoreV1().Nodes().Get(ctx, names[1].Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := other.Status.Allocatable["example.com/gadget"]; q.Cmp(resource.MustParse("5")) != 0 {
		t.Errorf("node %s allocatable example.com/gadget = %s, want 5", other.Name, q.String())
	}
	if _, ok := other.Status.Allocatable[nodes.ExtendedResource]; ok {
		t.Errorf("node %s advertises %s it was not given", other.Name, nodes.ExtendedResource)
	}

	// A warm node rejects in milliseconds, with the kubelet's reason.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "too-big", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: names[1].Name, AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "c", Image: "pause", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5")}}}}}}
	d, err := nodes.CreateAndDecide(ctx, client, pod, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if d.Admitted || d.Pod.Status.Reason != "OutOfcpu" || d.Latency > time.Second {
		t.Errorf("decision admitted=%t reason=%q latency=%s", d.Admitted, d.Pod.Status.Reason, d.Latency)
	}
	t.Logf("rejection latency %s", d.Latency)

	stopping := time.Now()
	if err := c.Stop(context.Background()); err != nil {
		t.Error(err)
	}
	stopped = true
	t.Logf("stopped in %s", time.Since(stopping))
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
	noChildrenLeft()
}

// A node that cannot start fails the cluster's start with an error naming
// the node and what it said, and nothing is left.
func TestNodeThatCannotStartIsNamedAndRolledBack(t *testing.T) {
	noChildrenLeft := markChildren(t)
	base := t.TempDir()
	spec := nodeset.DefaultSpec()
	spec.ExtendedResources = map[string]string{"example.com/gadget": "lots"}
	_, err := embedded.New(embedded.WithBaseDir(base), embedded.WithNodes(1, spec)).Start(context.Background())
	if err == nil {
		t.Fatal("a node with an unparsable extended resource started")
	}
	t.Logf("error: %v", err)
	for _, want := range []string{"start nodes", "node-0", "extended resource example.com/gadget"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
	noChildrenLeft()
}
