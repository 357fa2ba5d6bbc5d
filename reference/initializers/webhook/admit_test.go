package webhook

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

type source struct {
	configs []v1alpha1.InitializerConfiguration
	readAt  time.Time
	ok      bool
}

func (s source) Latest() ([]v1alpha1.InitializerConfiguration, time.Time, bool) {
	return s.configs, s.readAt, s.ok
}

func podRequest(t *testing.T, pod *corev1.Pod) *admissionv1.AdmissionRequest {
	t.Helper()
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	return &admissionv1.AdmissionRequest{
		UID: "u", Operation: admissionv1.Create,
		Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		Object:   runtime.RawExtension{Raw: raw},
	}
}

// admitted applies the answer's patch to pod.
func admitted(t *testing.T, pod *corev1.Pod, resp *admissionv1.AdmissionResponse) *corev1.Pod {
	t.Helper()
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	if resp.Patch == nil {
		return pod
	}
	raw, _ := json.Marshal(pod)
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	out, err := patch.Apply(raw)
	if err != nil {
		t.Fatalf("patch %s: %v", resp.Patch, err)
	}
	var p corev1.Pod
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func TestAdmitHoldsAPodAfterItsOwnGates(t *testing.T) {
	pods := rule("", "v1", "pods")
	now := time.Now()
	src := source{configs: []v1alpha1.InitializerConfiguration{config("a", init1("x.io/one", pods), init1("x.io/mine", pods))}, readAt: now, ok: true}
	for name, pod := range map[string]*corev1.Pod{
		"bare":        {},
		"own gate":    {ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k": "v"}, Annotations: map[string]string{"a": "b"}}, Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "x.io/mine"}}}},
		"other gates": {Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "y.io/theirs"}}}},
	} {
		t.Run(name, func(t *testing.T) {
			p := admitted(t, pod, Admit(podRequest(t, pod), src, now, Settings{BlockAfter: 5 * time.Second}))
			var gates []string
			for _, g := range p.Spec.SchedulingGates {
				gates = append(gates, g.Name)
			}
			for _, want := range []string{"x.io/one", "x.io/mine"} {
				if !slices.Contains(gates, want) {
					t.Errorf("gates %v lack %s", gates, want)
				}
			}
			if len(gates) != len(slices.Compact(slices.Sorted(slices.Values(gates)))) {
				t.Errorf("a gate twice: %v", gates)
			}
			if len(pod.Spec.SchedulingGates) > 0 && gates[0] != pod.Spec.SchedulingGates[0].Name {
				t.Errorf("the pod's own gate is no longer first: %v", gates)
			}
			// The assigned gates follow the configuration's order.
			if i, j := slices.Index(gates, "x.io/one"), slices.Index(gates, "x.io/mine"); name != "own gate" && i > j {
				t.Errorf("gates %v: x.io/one is assigned before x.io/mine", gates)
			}
			if p.Labels[v1alpha1.InitializingLabel] != "true" {
				t.Errorf("labels %v", p.Labels)
			}
			if a, err := v1alpha1.AssignedTo(p); err != nil || len(a) != 2 || a[0].Name != "x.io/one" {
				t.Errorf("assigned %+v, %v", a, err)
			}
			if pod.Labels["k"] != "" && p.Labels["k"] != "v" {
				t.Errorf("the pod's own label is gone: %v", p.Labels)
			}
		})
	}
}

func TestAdmitDeniesWhenNoReadIsRecentEnough(t *testing.T) {
	now := time.Now()
	pod := &corev1.Pod{}
	for name, src := range map[string]source{
		"never read": {},
		"stale":      {readAt: now.Add(-6 * time.Second), ok: true},
	} {
		resp := Admit(podRequest(t, pod), src, now, Settings{BlockAfter: 5 * time.Second})
		if resp.Allowed || resp.Result.Code != 503 || resp.Result.Reason != v1alpha1.ReasonLoadingConfiguration {
			t.Errorf("%s: %+v", name, resp.Result)
		}
	}
	fresh := source{readAt: now.Add(-4 * time.Second), ok: true}
	if resp := Admit(podRequest(t, pod), fresh, now, Settings{BlockAfter: 5 * time.Second}); !resp.Allowed || resp.Patch != nil {
		t.Errorf("a read 4 s old must admit without a patch: %+v", resp)
	}
}

func TestAdmitLeavesABoundPodAloneWithAWarning(t *testing.T) {
	now := time.Now()
	src := source{configs: []v1alpha1.InitializerConfiguration{config("a", init1("x.io/one", rule("", "v1", "pods")))}, readAt: now, ok: true}
	resp := Admit(podRequest(t, &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n"}}), src, now, Settings{BlockAfter: time.Second})
	if !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "x.io/one") {
		t.Errorf("%+v", resp)
	}
}

func TestAdmitWithAScopeLabelAppliesOnlyTheNamespacesConfigurations(t *testing.T) {
	pods := rule("", "v1", "pods")
	now := time.Now()
	mine, theirs, unlabelled := config("a", init1("mine.io/one", pods)), config("b", init1("theirs.io/one", pods)), config("c", init1("anyone.io/one", pods))
	mine.Labels = map[string]string{"scope": "ns-a"}
	theirs.Labels = map[string]string{"scope": "ns-b"}
	src := source{configs: []v1alpha1.InitializerConfiguration{mine, theirs, unlabelled}, readAt: now, ok: true}
	req := podRequest(t, &corev1.Pod{})
	req.Namespace = "ns-a"
	scoped := admitted(t, &corev1.Pod{}, Admit(req, src, now, Settings{BlockAfter: time.Second, ScopeLabel: "scope"}))
	if a, err := v1alpha1.AssignedTo(scoped); err != nil || len(a) != 1 || a[0].Name != "mine.io/one" {
		t.Errorf("scoped: assigned %+v, %v; want mine.io/one alone", a, err)
	}
	global := admitted(t, &corev1.Pod{}, Admit(req, src, now, Settings{BlockAfter: time.Second}))
	if a, err := v1alpha1.AssignedTo(global); err != nil || len(a) != 3 {
		t.Errorf("without a scope label every configuration applies: assigned %+v, %v", a, err)
	}
}
