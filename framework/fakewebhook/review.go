package fakewebhook

import (
	"encoding/json"
	"fmt"
	"maps"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

const (
	reviewKind                = "AdmissionReview"
	reviewV1                  = "admission.k8s.io/v1"
	reviewV1beta1             = "admission.k8s.io/v1beta1"
	unsupportedReviewV0       = "admission.k8s.io/v0"
	maxReviewBytes      int64 = 64 << 20 // far above the apiserver's request size limit
)

// decodeReview parses an AdmissionReview of either served version. The
// v1beta1 and v1 types have the same JSON shape, so both decode into the v1
// type; only the apiVersion differs, and it is returned for the answer.
func decodeReview(body []byte) (string, *admissionv1.AdmissionRequest, error) {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return "", nil, fmt.Errorf("decode AdmissionReview: %w", err)
	}
	if review.Kind != reviewKind {
		return "", nil, fmt.Errorf("kind is %q, want %q", review.Kind, reviewKind)
	}
	if review.APIVersion != reviewV1 && review.APIVersion != reviewV1beta1 {
		return "", nil, fmt.Errorf("unsupported AdmissionReview apiVersion %q", review.APIVersion)
	}
	if review.Request == nil {
		return "", nil, fmt.Errorf("AdmissionReview has no request")
	}
	return review.APIVersion, review.Request, nil
}

// encodeReview wraps an answer in an AdmissionReview of the given version.
func encodeReview(version string, resp *admissionv1.AdmissionResponse) ([]byte, error) {
	review := admissionv1.AdmissionReview{Response: resp}
	// An empty version is an answer without type meta (NoTypeMeta).
	if version != "" {
		review.APIVersion = version
		review.Kind = reviewKind
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, fmt.Errorf("encode AdmissionReview: %w", err)
	}
	return body, nil
}

// rawReview is an AdmissionReview of version whose response is response
// as given, with uid set to the request's unless response names one; nil
// means no response at all.
func rawReview(version string, uid types.UID, response map[string]any) ([]byte, error) {
	review := map[string]any{"apiVersion": version, "kind": reviewKind}
	if response != nil {
		r := maps.Clone(response)
		if _, ok := r["uid"]; !ok {
			r["uid"] = uid
		}
		review["response"] = r
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, fmt.Errorf("encode AdmissionReview: %w", err)
	}
	return body, nil
}

// reviewFields returns the field paths an AdmissionReview's request or
// response sets (WithFieldPaths), nil when body is not such a review or
// the server names no paths.
func (s *Server) reviewFields(body []byte, part, root string) []results.FieldPath {
	if s.fieldPaths == nil {
		return nil
	}
	var review map[string]json.RawMessage
	if json.Unmarshal(body, &review) != nil || len(review[part]) == 0 {
		return nil
	}
	paths, err := s.fieldPaths(root, review[part])
	if err != nil {
		return nil
	}
	return paths
}
