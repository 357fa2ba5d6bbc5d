package fakewebhook

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"
)

// wantReview describes an AdmissionReview answer; nil means the answer must
// not be one.
type wantReview struct {
	apiVersion string // "" means the request's version
	allowed    bool
	wrongUID   bool
	code       int32
	message    string
	patch      string // JSON of the patch, decoded from base64
	warnings   []string
}

func TestActionsAnswerInRequestVersion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		name       string
		behaviour  Behaviour
		wantStatus int
		wantBody   string // for answers that are not reviews
		wantReview *wantReview
	}{
		{
			name:       "zero behaviour allows",
			behaviour:  Behaviour{},
			wantStatus: 200,
			wantReview: &wantReview{allowed: true},
		},
		{
			name:       "allow with warnings",
			behaviour:  Behaviour{Action: Allow, Warnings: []string{"careful", "very careful"}},
			wantStatus: 200,
			wantReview: &wantReview{allowed: true, warnings: []string{"careful", "very careful"}},
		},
		{
			name:       "deny with default code",
			behaviour:  Behaviour{Action: Deny, Message: "no pods today"},
			wantStatus: 200,
			wantReview: &wantReview{code: 403, message: "no pods today"},
		},
		{
			name:       "deny with code",
			behaviour:  Behaviour{Action: Deny, Code: 422, Message: "invalid"},
			wantStatus: 200,
			wantReview: &wantReview{code: 422, message: "invalid"},
		},
		{
			name: "patch",
			behaviour: Behaviour{Action: Patch, Patch: []PatchOperation{
				{Op: "add", Path: "/metadata/labels", Value: map[string]string{"a": "b"}},
				{Op: "add", Path: "/metadata/annotations", Value: nil},
				{Op: "remove", Path: "/spec/x"},
			}},
			wantStatus: 200,
			wantReview: &wantReview{allowed: true, patch: `[{"op":"add","path":"/metadata/labels","value":{"a":"b"}},{"op":"add","path":"/metadata/annotations","value":null},{"op":"remove","path":"/spec/x"}]`},
		},
		{
			name:       "wrong UID",
			behaviour:  Behaviour{Action: WrongUID},
			wantStatus: 200,
			wantReview: &wantReview{allowed: true, wrongUID: true},
		},
		{
			name:       "wrong apiVersion",
			behaviour:  Behaviour{Action: WrongAPIVersion},
			wantStatus: 200,
			wantReview: &wantReview{allowed: true, apiVersion: "admission.k8s.io/v0"},
		},
		{
			name:       "the other review version",
			behaviour:  Behaviour{Action: OtherReviewVersion},
			wantStatus: 200,
			wantReview: &wantReview{allowed: true, apiVersion: "other"},
		},
		{
			name:       "internal error",
			behaviour:  Behaviour{Action: InternalError},
			wantStatus: 500,
			wantBody:   "fake webhook: internal error\n",
		},
		{
			name:       "malformed",
			behaviour:  Behaviour{Action: Malformed},
			wantStatus: 200,
			wantBody:   `{"this is": not json`,
		},
	}
	for i, tc := range cases {
		for _, version := range []string{reviewV1, reviewV1beta1} {
			path := "/case" + string(rune('a'+i)) + "/" + version[len("admission.k8s.io/"):]
			h.register(path, Mutating, tc.behaviour)
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				uid := types.UID("uid-" + strings.ReplaceAll(path[1:], "/", "-"))
				got, err := h.post(h.client, path+"?timeout=10s", reviewBody(t, version, uid))
				if err != nil {
					t.Fatalf("post: %v", err)
				}
				if got.status != tc.wantStatus {
					t.Fatalf("status = %d, want %d (body %q)", got.status, tc.wantStatus, got.body)
				}
				if tc.wantReview == nil {
					if string(got.body) != tc.wantBody {
						t.Errorf("body = %q, want %q", got.body, tc.wantBody)
					}
				} else {
					checkReview(t, got, version, uid, *tc.wantReview)
				}
				checkCall(t, h.callFor(uid), path, version, tc.behaviour.action(), tc.wantReview != nil && tc.wantReview.allowed)
			})
		}
	}
}

func checkReview(t *testing.T, got reply, version string, uid types.UID, want wantReview) {
	t.Helper()
	if got.contentType != "application/json" {
		t.Errorf("content type = %q", got.contentType)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(got.body, &review); err != nil {
		t.Fatalf("answer is not an AdmissionReview: %v (%q)", err, got.body)
	}
	wantVersion := version
	if want.apiVersion == "other" {
		wantVersion = map[string]string{reviewV1: reviewV1beta1, reviewV1beta1: reviewV1}[version]
	} else if want.apiVersion != "" {
		wantVersion = want.apiVersion
	}
	if review.APIVersion != wantVersion || review.Kind != "AdmissionReview" {
		t.Errorf("answer is %s %s, want %s AdmissionReview", review.APIVersion, review.Kind, wantVersion)
	}
	resp := review.Response
	if resp == nil {
		t.Fatalf("answer has no response: %q", got.body)
	}
	if gotWrong := resp.UID != uid; gotWrong != want.wrongUID || resp.UID == "" {
		t.Errorf("response UID = %q for request %q, want wrong=%v", resp.UID, uid, want.wrongUID)
	}
	if resp.Allowed != want.allowed {
		t.Errorf("allowed = %v, want %v", resp.Allowed, want.allowed)
	}
	if want.code != 0 {
		if resp.Result == nil || resp.Result.Code != want.code || resp.Result.Message != want.message {
			t.Errorf("result = %+v, want code %d message %q", resp.Result, want.code, want.message)
		}
	} else if resp.Result != nil {
		t.Errorf("unexpected result %+v", resp.Result)
	}
	if !slices.Equal(resp.Warnings, want.warnings) {
		t.Errorf("warnings = %q, want %q", resp.Warnings, want.warnings)
	}
	checkPatch(t, got.body, resp, want.patch)
}

func checkPatch(t *testing.T, raw []byte, resp *admissionv1.AdmissionResponse, want string) {
	t.Helper()
	if want == "" {
		if resp.Patch != nil || resp.PatchType != nil {
			t.Errorf("unexpected patch %q (type %v)", resp.Patch, resp.PatchType)
		}
		return
	}
	if string(resp.Patch) != want {
		t.Errorf("patch = %s, want %s", resp.Patch, want)
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Errorf("patchType = %v, want JSONPatch", resp.PatchType)
	}
	// The wire form must be base64, which is what the apiserver decodes.
	var wire struct {
		Response struct {
			Patch string `json:"patch"`
		} `json:"response"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatal(err)
	}
	if wire.Response.Patch != base64.StdEncoding.EncodeToString([]byte(want)) {
		t.Errorf("patch on the wire = %q, not base64 of the patch", wire.Response.Patch)
	}
}

func checkCall(t *testing.T, c Call, path, version string, action Action, allowed bool) {
	t.Helper()
	if c.Path != path || c.Webhook != "hook"+path || c.Phase != Mutating {
		t.Errorf("call path/webhook/phase = %s/%s/%s", c.Path, c.Webhook, c.Phase)
	}
	if c.ReviewVersion != version || c.Operation != "CREATE" || c.Kind.Kind != "Pod" ||
		c.Resource.Resource != "pods" || c.RequestKind == nil || c.RequestKind.Kind != "Pod" ||
		c.Namespace != "ns" || c.Name != "p" || !c.DryRun || c.UserInfo.Username != testUser {
		t.Errorf("call does not reflect the request: %+v", c)
	}
	if c.TimeoutParam != "10s" {
		t.Errorf("timeout param = %q, want 10s", c.TimeoutParam)
	}
	var pod struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	if err := c.DecodeObject(&pod); err != nil || pod.Metadata.Name != "p" {
		t.Errorf("DecodeObject = %v, name %q", err, pod.Metadata.Name)
	}
	if err := c.DecodeOldObject(&pod); err == nil {
		t.Errorf("DecodeOldObject succeeded on a CREATE")
	}
	if c.Action != action || c.Allowed != allowed || c.Err != "" {
		t.Errorf("call action/allowed/err = %s/%v/%q, want %s/%v/\"\"", c.Action, c.Allowed, c.Err, action, allowed)
	}
	if !c.Answered() || !(c.Received < c.Responded && c.Responded <= c.Finished) {
		t.Errorf("offsets not increasing: received %v responded %v finished %v", c.Received, c.Responded, c.Finished)
	}
	if !c.RespondedAt.After(c.ReceivedAt) || !strings.Contains(c.ReceivedAt.String(), "m=+") {
		t.Errorf("times lack order or monotonic reading: %v -> %v", c.ReceivedAt, c.RespondedAt)
	}
}

func TestRawAnswersItsResponseAsGiven(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	cases := []struct {
		name     string
		response map[string]any
		want     string // the answer's JSON, uid written as UID
	}{
		{"no response", nil, `{"apiVersion":"VERSION","kind":"AdmissionReview"}`},
		{"uid filled in", map[string]any{"allowed": false}, `{"apiVersion":"VERSION","kind":"AdmissionReview","response":{"allowed":false,"uid":"UID"}}`},
		{"uid kept", map[string]any{"allowed": true, "uid": "other", "patchType": ""}, `{"apiVersion":"VERSION","kind":"AdmissionReview","response":{"allowed":true,"patchType":"","uid":"other"}}`},
	}
	for i, tc := range cases {
		for _, version := range []string{reviewV1, reviewV1beta1} {
			path := "/raw" + string(rune('a'+i)) + "/" + version[len("admission.k8s.io/"):]
			h.register(path, Mutating, Behaviour{Action: Raw, Response: tc.response})
			t.Run(tc.name+"/"+version, func(t *testing.T) {
				uid := types.UID("uid-" + strings.ReplaceAll(path[1:], "/", "-"))
				got, err := h.post(h.client, path+"?timeout=10s", reviewBody(t, version, uid))
				if err != nil {
					t.Fatal(err)
				}
				want := strings.NewReplacer("VERSION", version, "UID", string(uid)).Replace(tc.want)
				if got.status != 200 || string(got.body) != want {
					t.Errorf("got %d %s, want 200 %s", got.status, got.body, want)
				}
				checkCall(t, h.callFor(uid), path, version, Raw, tc.response["allowed"] == true)
			})
		}
	}
}
