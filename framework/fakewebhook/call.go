package fakewebhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Call is one request the server received and what it did about it.
type Call struct {
	// Seq orders calls by receipt across the whole server, starting at 1.
	Seq     int64  `json:"seq"`
	Path    string `json:"path"`
	Webhook string `json:"webhook,omitempty"` // empty if no endpoint is registered on Path
	Phase   Phase  `json:"phase,omitempty"`

	// ReviewVersion is the apiVersion of the AdmissionReview received.
	ReviewVersion      string                       `json:"reviewVersion,omitempty"`
	UID                types.UID                    `json:"uid,omitempty"`
	Operation          string                       `json:"operation,omitempty"`
	Kind               metav1.GroupVersionKind      `json:"kind"`
	Resource           metav1.GroupVersionResource  `json:"resource"`
	SubResource        string                       `json:"subResource,omitempty"`
	RequestKind        *metav1.GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *metav1.GroupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                       `json:"requestSubResource,omitempty"`
	Namespace          string                       `json:"namespace,omitempty"`
	Name               string                       `json:"name,omitempty"`
	DryRun             bool                         `json:"dryRun,omitempty"`
	UserInfo           authenticationv1.UserInfo    `json:"userInfo"`
	// Object, OldObject and Options are the raw bytes as received.
	Object    json.RawMessage `json:"object,omitempty"`
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	Options   json.RawMessage `json:"options,omitempty"`

	// RemoteAddr is the peer of the connection the call came on: the
	// apiserver, or a Forwarder that relayed it (Forwarder.Carried).
	RemoteAddr string `json:"remoteAddr,omitempty"`

	// TimeoutParam is the ?timeout= value the apiserver sent, which is how
	// it tells the webhook its timeoutSeconds.
	TimeoutParam string `json:"timeoutParam,omitempty"`

	// ReceivedAt, RespondedAt and FinishedAt come from time.Now and carry
	// the monotonic clock reading, so differences between them are immune
	// to wall-clock steps. RespondedAt is zero when no answer was written
	// (hang or delay abandoned, connection closed). FinishedAt is when the
	// handler returned, which for an abandoned call is when the client gave
	// up or the server closed.
	ReceivedAt  time.Time `json:"receivedAt"`
	RespondedAt time.Time `json:"respondedAt"`
	FinishedAt  time.Time `json:"finishedAt"`
	// Received, Responded and Finished are the same instants as offsets
	// from the server's start, which survive JSON serialisation where the
	// monotonic reading does not. Responded is zero when RespondedAt is.
	Received  time.Duration `json:"received"`
	Responded time.Duration `json:"responded"`
	Finished  time.Duration `json:"finished"`

	// Action is what the server did; empty if it never got to act (bad
	// request, unregistered path).
	Action Action `json:"action,omitempty"`
	// Allowed is the allowed field of the answer; false for anything that
	// was not an AdmissionReview answer.
	Allowed bool `json:"allowed"`
	// Err explains a call that did not get the intended answer, e.g.
	// "client went away while hanging".
	Err string `json:"err,omitempty"`

	// RequestFields are the AdmissionRequest field paths the request set,
	// AnswerFields the AdmissionResponse paths the answer set
	// (WithFieldPaths): the run's field coverage.
	RequestFields []results.FieldPath `json:"requestFields,omitempty"`
	AnswerFields  []results.FieldPath `json:"answerFields,omitempty"`
}

// Answered reports whether a response was written.
func (c Call) Answered() bool { return !c.RespondedAt.IsZero() }

// DecodeObject unmarshals the request's object into into.
func (c Call) DecodeObject(into any) error { return decodeRaw("object", c.Object, into) }

// DecodeOldObject unmarshals the request's oldObject into into.
func (c Call) DecodeOldObject(into any) error { return decodeRaw("oldObject", c.OldObject, into) }

func decodeRaw(field string, raw json.RawMessage, into any) error {
	if len(raw) == 0 {
		return errors.New("call has no " + field)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("decode %s: %w", field, err)
	}
	return nil
}

// setRequest copies what the apiserver sent into the call.
func (c *Call) setRequest(version string, req *admissionv1.AdmissionRequest) {
	c.ReviewVersion = version
	c.UID = req.UID
	c.Operation = string(req.Operation)
	c.Kind = req.Kind
	c.Resource = req.Resource
	c.SubResource = req.SubResource
	c.RequestKind = req.RequestKind
	c.RequestResource = req.RequestResource
	c.RequestSubResource = req.RequestSubResource
	c.Namespace = req.Namespace
	c.Name = req.Name
	c.DryRun = req.DryRun != nil && *req.DryRun
	c.UserInfo = req.UserInfo
	c.Object = req.Object.Raw
	c.OldObject = req.OldObject.Raw
	c.Options = req.Options.Raw
}

// clone deep-copies everything reachable, so journal readers can never
// alias (and race with) what the journal or other readers hold.
func (c Call) clone() Call {
	if c.RequestKind != nil {
		k := *c.RequestKind
		c.RequestKind = &k
	}
	if c.RequestResource != nil {
		r := *c.RequestResource
		c.RequestResource = &r
	}
	c.UserInfo.Groups = slices.Clone(c.UserInfo.Groups)
	if c.UserInfo.Extra != nil {
		extra := maps.Clone(c.UserInfo.Extra)
		for k, v := range extra {
			extra[k] = slices.Clone(v)
		}
		c.UserInfo.Extra = extra
	}
	c.Object = slices.Clone(c.Object)
	c.OldObject = slices.Clone(c.OldObject)
	c.Options = slices.Clone(c.Options)
	c.RequestFields = slices.Clone(c.RequestFields)
	c.AnswerFields = slices.Clone(c.AnswerFields)
	return c
}
