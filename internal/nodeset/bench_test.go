package nodeset_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
)

// BenchmarkNodeRejection measures, on one warm hollow node, the time from
// creating a pod the node must reject to its Failed status, and reports the
// median and maximum. Goal: well under the nodeAdmission bound (2 s); warm
// nodes take milliseconds.
//
//	go test -run '^$' -bench NodeRejection -benchtime 50x ./framework/nodes/
func BenchmarkNodeRejection(b *testing.B) {
	started := time.Now()
	c, err := embedded.New(embedded.WithBaseDir(b.TempDir()), embedded.WithNodes(1, nodeset.DefaultSpec())).Start(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = c.Stop(context.Background()) }()
	startup := time.Since(started)
	client := kubernetes.NewForConfigOrDie(c.RESTConfig())
	node := c.Nodes()[0].Name
	var latencies []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("too-big-%d", i), Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: node, AutomountServiceAccountToken: ptr.To(false),
				Containers: []corev1.Container{{Name: "c", Image: "pause", Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}}}}}}
		d, err := nodes.CreateAndDecide(context.Background(), client, pod, 30*time.Second)
		if err != nil || d.Admitted {
			b.Fatalf("admitted %t: %v", d.Admitted, err)
		}
		latencies = append(latencies, d.Latency)
	}
	b.StopTimer()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	b.ReportMetric(startup.Seconds(), "cluster-with-warm-node-s")
	b.ReportMetric(float64(latencies[len(latencies)/2])/1e6, "median-ms")
	b.ReportMetric(float64(latencies[len(latencies)-1])/1e6, "max-ms")
}
