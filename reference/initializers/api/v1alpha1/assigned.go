package v1alpha1

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Assigned is one initializer as assigned to a pod at its creation: the
// configuration's failure policy and timeout at that moment travel with the
// pod, so a later change of the configuration does not change the rules of
// an initialization already under way.
type Assigned struct {
	Name           string            `json:"name"`
	FailurePolicy  FailurePolicyType `json:"failurePolicy"`
	TimeoutSeconds int32             `json:"timeoutSeconds"`
	// Configuration is the InitializerConfiguration it came from.
	Configuration string `json:"configuration"`
}

// Timeout is TimeoutSeconds as a duration.
func (a Assigned) Timeout() time.Duration { return time.Duration(a.TimeoutSeconds) * time.Second }

// EncodeAssigned is the value of AssignedAnnotation.
func EncodeAssigned(list []Assigned) (string, error) {
	b, err := json.Marshal(list)
	return string(b), err
}

// AssignedTo returns the initializers assigned to pod at creation, in order;
// none if the pod was not held.
func AssignedTo(pod *corev1.Pod) ([]Assigned, error) {
	raw, ok := pod.Annotations[AssignedAnnotation]
	if !ok {
		return nil, nil
	}
	var list []Assigned
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return nil, fmt.Errorf("pod %s/%s: annotation %s: %w", pod.Namespace, pod.Name, AssignedAnnotation, err)
	}
	return list, nil
}

// Remaining returns the assigned initializers whose gate is still on the
// pod, in the order of the pod's scheduling gates.
func Remaining(pod *corev1.Pod) ([]Assigned, error) {
	list, err := AssignedTo(pod)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	byName := make(map[string]Assigned, len(list))
	for _, a := range list {
		byName[a.Name] = a
	}
	var out []Assigned
	for _, g := range pod.Spec.SchedulingGates {
		if a, ok := byName[g.Name]; ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// Head returns the initializer whose turn it is: the first remaining one.
func Head(pod *corev1.Pod) (Assigned, bool, error) {
	remaining, err := Remaining(pod)
	if err != nil || len(remaining) == 0 {
		return Assigned{}, false, err
	}
	return remaining[0], true, nil
}

// GateIndex is the index of the scheduling gate called name, or -1.
func GateIndex(pod *corev1.Pod, name string) int {
	for i, g := range pod.Spec.SchedulingGates {
		if g.Name == name {
			return i
		}
	}
	return -1
}

// RemoveGatePatch is a JSON patch removing the gate called name at index i,
// refused by the apiserver (422 test failed) if the pod changed meanwhile.
func RemoveGatePatch(i int, name string) ([]byte, error) {
	return json.Marshal([]map[string]any{
		{"op": "test", "path": fmt.Sprintf("/spec/schedulingGates/%d/name", i), "value": name},
		{"op": "remove", "path": fmt.Sprintf("/spec/schedulingGates/%d", i)},
	})
}

// FinishPatch is a JSON patch removing the initializing label, refused by
// the apiserver (422 test failed) before admission when the label is gone
// already: a second finish of the same pod (its informer's view lagging
// behind the first) must not send an update of an initialized pod through
// the update mutators, which would see it as an update of a pod without
// the label.
func FinishPatch() ([]byte, error) {
	path := "/metadata/labels/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(InitializingLabel)
	return json.Marshal([]map[string]any{
		{"op": "test", "path": path, "value": "true"},
		{"op": "remove", "path": path},
	})
}
