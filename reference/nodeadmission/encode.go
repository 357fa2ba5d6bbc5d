package nodeadmission

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
)

// EncodePod is what every plugin receives: the pod as the kubelet has it,
// as JSON with apiVersion and kind set (objects from informers carry no
// type meta).
func EncodePod(pod *corev1.Pod) ([]byte, error) {
	p := pod.DeepCopy()
	p.APIVersion, p.Kind = "v1", "Pod"
	return json.Marshal(p)
}
