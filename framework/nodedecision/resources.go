package nodedecision

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// ExtendedResource returns an extended resource node can allocate: the
// harness's own if the node has it, else the first by name.
func ExtendedResource(node *corev1.Node) (corev1.ResourceName, resource.Quantity, bool) {
	if q, ok := node.Status.Allocatable[nodes.ExtendedResource]; ok {
		return nodes.ExtendedResource, q, true
	}
	var names []string
	for name := range node.Status.Allocatable {
		n := string(name)
		if strings.Contains(n, "/") && !strings.Contains(n, "kubernetes.io/") && !strings.HasPrefix(n, corev1.ResourceHugePagesPrefix) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "", resource.Quantity{}, false
	}
	sort.Strings(names)
	return corev1.ResourceName(names[0]), node.Status.Allocatable[corev1.ResourceName(names[0])], true
}
