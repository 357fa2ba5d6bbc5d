package v1alpha1

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRemainingFollowsTheGatesAndIgnoresOthers(t *testing.T) {
	list := []Assigned{{Name: "x.io/a", FailurePolicy: Ignore, TimeoutSeconds: 5}, {Name: "x.io/b", FailurePolicy: Fail, TimeoutSeconds: 2}}
	raw, err := EncodeAssigned(list)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AssignedAnnotation: raw}},
		Spec:       corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "y.io/theirs"}, {Name: "x.io/b"}}},
	}
	head, ok, err := Head(pod)
	if err != nil || !ok || head.Name != "x.io/b" || head.Timeout().Seconds() != 2 {
		t.Fatalf("head %+v %t %v", head, ok, err)
	}
	if GateIndex(pod, "x.io/b") != 1 || GateIndex(pod, "x.io/a") != -1 {
		t.Error("GateIndex")
	}
	pod.Spec.SchedulingGates = pod.Spec.SchedulingGates[:1]
	if _, ok, _ := Head(pod); ok {
		t.Error("a pod whose assigned gates are gone still has a head")
	}
	pod.Annotations[AssignedAnnotation] = "{"
	if _, _, err := Head(pod); err == nil {
		t.Error("a broken annotation was accepted")
	}
}

func TestCRDDecodes(t *testing.T) {
	crd, err := CRD()
	if err != nil {
		t.Fatal(err)
	}
	if crd.Name != CRDName || crd.Spec.Group != Group || crd.Spec.Names.Kind != Kind || crd.Spec.Versions[0].Name != Version {
		t.Errorf("%s %s %s %s", crd.Name, crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Versions[0].Name)
	}
}

// TestFinishPatchRemovesTheLabelOnce: applied as the apiserver applies a
// JSON patch, it removes the initializing label (a key with a slash) and
// leaves the other labels; applied again, its test fails, so the
// apiserver refuses it before admission.
func TestFinishPatchRemovesTheLabelOnce(t *testing.T) {
	raw, err := FinishPatch()
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		t.Fatal(err)
	}
	pod := []byte(`{"metadata":{"name":"p","labels":{"` + InitializingLabel + `":"true","app":"x"}}}`)
	done, err := patch.Apply(pod)
	if err != nil {
		t.Fatalf("first finish: %v", err)
	}
	var got corev1.Pod
	if err := json.Unmarshal(done, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Labels[InitializingLabel]; ok || got.Labels["app"] != "x" {
		t.Errorf("labels after the first finish: %v", got.Labels)
	}
	if _, err := patch.Apply(done); err == nil {
		t.Error("a second finish applied to a pod without the label")
	}
}
