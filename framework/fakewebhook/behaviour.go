package fakewebhook

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase says which kind of webhook configuration an endpoint belongs to.
// The server answers both the same way; the phase is recorded in the
// journal so tests can tell mutating from validating calls.
type Phase string

const (
	Mutating   Phase = "mutating"
	Validating Phase = "validating"
)

// Action is what an endpoint does with a request.
type Action string

const (
	// Allow answers allowed=true.
	Allow Action = "Allow"
	// Deny answers allowed=false with Behaviour.Code and Behaviour.Message.
	Deny Action = "Deny"
	// Patch answers allowed=true with Behaviour.Patch as a JSONPatch.
	Patch Action = "Patch"
	// Hang never answers: it waits until the client gives up or the server
	// closes, then drops the connection.
	Hang Action = "Hang"
	// CloseConnection drops the connection without writing a response.
	CloseConnection Action = "CloseConnection"
	// InternalError answers HTTP 500.
	InternalError Action = "InternalError"
	// Malformed answers HTTP 200 with a body that is not JSON.
	Malformed Action = "Malformed"
	// WrongUID answers allowed=true for a UID that is not the request's.
	WrongUID Action = "WrongUID"
	// WrongAPIVersion answers allowed=true as admission.k8s.io/v0, a
	// version no apiserver accepts.
	WrongAPIVersion Action = "WrongAPIVersion"
	// OtherReviewVersion answers allowed=true in the other AdmissionReview
	// version the apiserver speaks (v1beta1 to a v1 request, v1 to a
	// v1beta1 one): a version it decodes, but not the one it asked in.
	OtherReviewVersion Action = "OtherReviewVersion"
	// NoTypeMeta answers allowed=true with an AdmissionReview that names
	// neither apiVersion nor kind.
	NoTypeMeta Action = "NoTypeMeta"
	// PatchWithoutType answers allowed=true with Behaviour.Patch but no
	// patchType, which admission.k8s.io/v1 forbids.
	PatchWithoutType Action = "PatchWithoutType"
	// PatchTypeWithoutPatch answers allowed=true with patchType JSONPatch
	// and no patch, which admission.k8s.io/v1 forbids.
	PatchTypeWithoutPatch Action = "PatchTypeWithoutPatch"
	// Raw answers an AdmissionReview of the request's version whose
	// response is Behaviour.Response as it is (its uid set to the
	// request's unless Response names one), or that has no response at all
	// when Response is nil: for the answer forms the typed actions cannot
	// make (no response, an empty or unknown patchType, an undecodable
	// patch, a denial without status).
	Raw Action = "Raw"
)

// knownAction reports whether a is one of the actions above.
func knownAction(a Action) bool {
	switch a {
	case Allow, Deny, Patch, Hang, CloseConnection, InternalError, Malformed, WrongUID, WrongAPIVersion,
		OtherReviewVersion, NoTypeMeta, PatchWithoutType, PatchTypeWithoutPatch, Raw:
		return true
	}
	return false
}

// Behaviour is how an endpoint answers. The zero value allows.
type Behaviour struct {
	// Action defaults to Allow when empty.
	Action Action
	// Delay is waited before acting. The wait is abandoned, and nothing is
	// answered, if the client goes away or the server closes first.
	Delay time.Duration
	// Code is the status code of a Deny (default 403).
	Code int32
	// Message is the message of a Deny.
	Message string
	// Reason is the status reason of a Deny.
	Reason metav1.StatusReason
	// Result, when set, is the status a Deny answers verbatim, in place of
	// Code, Message and Reason: so a test can send what the apiserver must
	// repair (a code below 400, no message).
	Result *metav1.Status
	// Patch is sent by the Patch action. It is not validated, so tests can
	// send patches the apiserver must reject.
	Patch []PatchOperation
	// Warnings are added to every AdmissionReview answer.
	Warnings []string
	// AuditAnnotations are added to every AdmissionReview answer.
	AuditAnnotations map[string]string
	// Response is the response a Raw answer carries, field by field as JSON
	// has them (patch as base64 text).
	Response map[string]any
}

// defaultDenyCode is what kube-apiserver itself uses for admission denials.
const defaultDenyCode = 403

func (b Behaviour) action() Action {
	if b.Action == "" {
		return Allow
	}
	return b.Action
}

func (b Behaviour) denyCode() int32 {
	if b.Code == 0 {
		return defaultDenyCode
	}
	return b.Code
}

func (b Behaviour) validate() error {
	if b.Action != "" && !knownAction(b.Action) {
		return fmt.Errorf("unknown action %q", b.Action)
	}
	if b.Delay < 0 {
		return fmt.Errorf("negative delay %v", b.Delay)
	}
	if b.Code != 0 && (b.Code < 100 || b.Code > 599) {
		return fmt.Errorf("deny code %d is not an HTTP status code", b.Code)
	}
	return nil
}

// clone copies the slices so that a caller reusing its Behaviour value
// cannot change what a running server answers.
func (b Behaviour) clone() Behaviour {
	b.Patch = slices.Clone(b.Patch)
	b.Warnings = slices.Clone(b.Warnings)
	b.AuditAnnotations = maps.Clone(b.AuditAnnotations)
	b.Response = maps.Clone(b.Response)
	if b.Result != nil {
		b.Result = b.Result.DeepCopy()
	}
	return b
}

// PatchOperation is one RFC 6902 JSONPatch operation.
type PatchOperation struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from,omitempty"` // for "move" and "copy"
	Value any    `json:"value,omitempty"`
}

// MarshalJSON keeps "value" for add, replace and test even when it is nil,
// because there a missing value and a JSON null mean different things.
func (p PatchOperation) MarshalJSON() ([]byte, error) {
	type wire struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		From  string          `json:"from,omitempty"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	w := wire{Op: p.Op, Path: p.Path, From: p.From}
	if p.Op == "add" || p.Op == "replace" || p.Op == "test" || p.Value != nil {
		v, err := json.Marshal(p.Value)
		if err != nil {
			return nil, fmt.Errorf("patch %s %s: %w", p.Op, p.Path, err)
		}
		w.Value = v
	}
	return json.Marshal(w)
}

// Endpoint is one fake webhook served on Path.
type Endpoint struct {
	Path string
	// Webhook is the webhook name in the configuration, recorded in the
	// journal for readable assertions.
	Webhook   string
	Phase     Phase
	Behaviour Behaviour
}
