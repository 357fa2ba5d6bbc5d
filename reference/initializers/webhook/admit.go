package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// Source gives the configurations of the latest successful read and when
// that read succeeded; ok is false until one has.
type Source interface {
	Latest() (configs []v1alpha1.InitializerConfiguration, readAt time.Time, ok bool)
}

// Settings say how the webhook decides.
type Settings struct {
	// BlockAfter is how long after the latest successful read creations are
	// denied (the seed's 5 s).
	BlockAfter time.Duration
	Order      Order
	// ScopeLabel, when set, scopes each configuration to one namespace: it
	// applies only to creations in the namespace its label ScopeLabel
	// names (a harness option, off by default: the seed's configurations
	// apply everywhere; the harness scopes each spec's configurations to
	// the spec's namespace so that specs can run at the same time).
	ScopeLabel string
}

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Admit answers one AdmissionReview request at now.
func Admit(req *admissionv1.AdmissionRequest, src Source, now time.Time, s Settings) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Operation != admissionv1.Create {
		return resp
	}
	configs, readAt, ok := src.Latest()
	if age := now.Sub(readAt); !ok || age > s.BlockAfter {
		return loading(resp, ok, age, s.BlockAfter)
	}
	gvr := schema.GroupVersionResource{Group: req.Resource.Group, Version: req.Resource.Version, Resource: req.Resource.Resource}
	if gvr != podsResource || req.SubResource != "" {
		return resp
	}
	if s.ScopeLabel != "" {
		configs = inScope(configs, s.ScopeLabel, req.Namespace)
	}
	plan := Plan(configs, gvr, s.Order)
	if len(plan) == 0 {
		return resp
	}
	var pod corev1.Pod
	if err := json.Unmarshal(req.Object.Raw, &pod); err != nil {
		return deny(resp, 400, metav1.StatusReasonBadRequest, fmt.Sprintf("decode pod: %v", err))
	}
	if pod.Spec.NodeName != "" {
		// A pod bound at creation bypasses the scheduler, and gates on it
		// are invalid: it cannot be held.
		resp.Warnings = []string{fmt.Sprintf("pod sets spec.nodeName, so initializers %s cannot hold it", names(plan))}
		return resp
	}
	patch, err := holdPatch(&pod, plan)
	if err != nil {
		return deny(resp, 500, metav1.StatusReasonInternalError, err.Error())
	}
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = patch, &pt
	return resp
}

// loading is the denial while the configurations are not known to be
// current.
func loading(resp *admissionv1.AdmissionResponse, ok bool, age, blockAfter time.Duration) *admissionv1.AdmissionResponse {
	msg := "initializer configurations not loaded yet: no read has succeeded"
	if ok {
		msg = fmt.Sprintf("initializer configurations not loaded: no read succeeded in the last %s (latest %s ago)", blockAfter, age.Round(time.Millisecond))
	}
	return deny(resp, 503, v1alpha1.ReasonLoadingConfiguration, msg)
}

func deny(resp *admissionv1.AdmissionResponse, code int32, reason metav1.StatusReason, msg string) *admissionv1.AdmissionResponse {
	resp.Allowed = false
	resp.Result = &metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}
	return resp
}

// holdPatch adds the plan's gates after the pod's own, the initializing
// label and the assignment annotation. A gate the pod already carries is
// not added twice but stays assigned.
func holdPatch(pod *corev1.Pod, plan []v1alpha1.Assigned) ([]byte, error) {
	assigned, err := v1alpha1.EncodeAssigned(plan)
	if err != nil {
		return nil, err
	}
	var ops []map[string]any
	gates := pod.Spec.SchedulingGates
	if len(gates) == 0 {
		ops = append(ops, map[string]any{"op": "add", "path": "/spec/schedulingGates", "value": []any{}})
	}
	for _, a := range plan {
		if v1alpha1.GateIndex(pod, a.Name) < 0 {
			ops = append(ops, map[string]any{"op": "add", "path": "/spec/schedulingGates/-", "value": map[string]string{"name": a.Name}})
		}
	}
	ops = append(ops, addToMap("/metadata/labels", pod.Labels == nil, v1alpha1.InitializingLabel, "true")...)
	ops = append(ops, addToMap("/metadata/annotations", pod.Annotations == nil, v1alpha1.AssignedAnnotation, assigned)...)
	return json.Marshal(ops)
}

func addToMap(path string, missing bool, key, value string) []map[string]any {
	if missing {
		return []map[string]any{{"op": "add", "path": path, "value": map[string]string{key: value}}}
	}
	return []map[string]any{{"op": "add", "path": path + "/" + escape(key), "value": value}}
}

// escape turns a map key into a JSON pointer segment (RFC 6901).
func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

func names(plan []v1alpha1.Assigned) string {
	out := make([]string, len(plan))
	for i, a := range plan {
		out[i] = a.Name
	}
	return strings.Join(out, ", ")
}

// inScope keeps the configurations whose label scope names namespace.
func inScope(configs []v1alpha1.InitializerConfiguration, scope, namespace string) []v1alpha1.InitializerConfiguration {
	var out []v1alpha1.InitializerConfiguration
	for _, c := range configs {
		if v, ok := c.Labels[scope]; ok && v == namespace {
			out = append(out, c)
		}
	}
	return out
}
