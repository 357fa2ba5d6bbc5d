package nodeset

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// A warm-up pod's name is its hostname: it must be a DNS label whatever the
// node is called, stay distinct per node and per pod, and keep a short
// node's name readable.
func TestWarmUpPodNamesAreDNSLabels(t *testing.T) {
	nodes := []string{
		"hollow-node-0",
		"admission-conformance-76e295f9-worker",
		"admission-conformance-76e295f9-control-plane",
		"admission-conformance-76e295f9-control-plane3",
		strings.Repeat("n", 253),
	}
	seen := map[string]string{}
	for _, node := range nodes {
		for i := range 2 {
			name := warmUpPodName(node, i)
			if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
				t.Errorf("node %q pod %d: %q is not a DNS label: %v", node, i, name, errs)
			}
			if other, ok := seen[name]; ok {
				t.Errorf("node %q pod %d: %q also names a pod of %s", node, i, name, other)
			}
			seen[name] = node
		}
	}
	if got, want := warmUpPodName("hollow-node-0", 1), "admission-conformance-warm-up-hollow-node-0-1"; got != want {
		t.Errorf("a short node's pod is %q, want %q", got, want)
	}
}
