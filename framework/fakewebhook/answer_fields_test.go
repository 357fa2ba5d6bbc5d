package fakewebhook

import (
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestAnswerFieldsBeyondAllowedAndPatch checks the parts of an answer the
// contract specs send to see what the apiserver does with them.
func TestAnswerFieldsBeyondAllowedAndPatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ops := []PatchOperation{{Op: "add", Path: "/metadata/labels", Value: map[string]string{"a": "b"}}}
	cases := map[string]struct {
		behaviour Behaviour
		check     func(t *testing.T, r *admissionv1.AdmissionResponse)
	}{
		"deny with reason": {Behaviour{Action: Deny, Code: 409, Message: "m", Reason: metav1.StatusReasonConflict},
			func(t *testing.T, r *admissionv1.AdmissionResponse) {
				if r.Allowed || r.Result == nil || r.Result.Code != 409 || r.Result.Reason != metav1.StatusReasonConflict || r.Result.Message != "m" {
					t.Errorf("result = %+v", r.Result)
				}
			}},
		"deny with a verbatim result": {Behaviour{Action: Deny, Code: 422, Message: "ignored", Result: &metav1.Status{Code: 200}},
			func(t *testing.T, r *admissionv1.AdmissionResponse) {
				if r.Allowed || r.Result == nil || r.Result.Code != 200 || r.Result.Message != "" || r.Result.Status != "" {
					t.Errorf("result = %+v, want exactly {code: 200}", r.Result)
				}
			}},
		"audit annotations": {Behaviour{AuditAnnotations: map[string]string{"k": "v"}},
			func(t *testing.T, r *admissionv1.AdmissionResponse) {
				if !r.Allowed || r.AuditAnnotations["k"] != "v" || len(r.AuditAnnotations) != 1 {
					t.Errorf("auditAnnotations = %v", r.AuditAnnotations)
				}
			}},
		"patch without patchType": {Behaviour{Action: PatchWithoutType, Patch: ops},
			func(t *testing.T, r *admissionv1.AdmissionResponse) {
				if !r.Allowed || r.PatchType != nil || string(r.Patch) != `[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]` {
					t.Errorf("patch = %s, patchType = %v", r.Patch, r.PatchType)
				}
			}},
		"patchType without patch": {Behaviour{Action: PatchTypeWithoutPatch, Patch: ops},
			func(t *testing.T, r *admissionv1.AdmissionResponse) {
				if !r.Allowed || r.PatchType == nil || *r.PatchType != admissionv1.PatchTypeJSONPatch || len(r.Patch) != 0 {
					t.Errorf("patch = %s, patchType = %v", r.Patch, r.PatchType)
				}
			}},
	}
	t.Run("no type meta", func(t *testing.T) {
		path := "/answer/no-type-meta"
		h.register(path, Validating, Behaviour{Action: NoTypeMeta})
		got, err := h.post(h.client, path, reviewBody(t, reviewV1, "uid-ntm"))
		if err != nil || got.status != 200 {
			t.Fatalf("post: %v, status %d", err, got.status)
		}
		var raw map[string]any
		if err := json.Unmarshal(got.body, &raw); err != nil {
			t.Fatal(err)
		}
		if _, has := raw["apiVersion"]; has || raw["kind"] != nil || raw["response"] == nil {
			t.Errorf("answer %s must have a response and neither apiVersion nor kind", got.body)
		}
	})
	for name, tc := range cases {
		path := "/answer/" + string(types.UID(name))
		h.register(path, Validating, tc.behaviour)
		t.Run(name, func(t *testing.T) {
			uid := types.UID("uid-" + name)
			got, err := h.post(h.client, path, reviewBody(t, reviewV1, uid))
			if err != nil || got.status != 200 {
				t.Fatalf("post: %v, status %d", err, got.status)
			}
			var review admissionv1.AdmissionReview
			if err := json.Unmarshal(got.body, &review); err != nil || review.Response == nil || review.Response.UID != uid {
				t.Fatalf("answer %s: %v", got.body, err)
			}
			tc.check(t, review.Response)
		})
	}
}
