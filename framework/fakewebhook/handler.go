package fakewebhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// malformedBody is what Malformed answers: it starts like JSON so the
// apiserver gets as far as its JSON decoder before failing.
const malformedBody = `{"this is": not json`

// handle serves every path. The call is recorded when it returns, whatever
// happened, so the journal also shows calls the client abandoned.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "fake webhook is closing", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()

	call := Call{Seq: s.seq.Add(1), Path: r.URL.Path, TimeoutParam: r.URL.Query().Get("timeout"), RemoteAddr: r.RemoteAddr}
	call.ReceivedAt, call.Received = s.now()
	defer func() {
		call.FinishedAt, call.Finished = s.now()
		s.journal.finish(call)
		s.logCall(call)
	}()

	ep, registered := s.endpoint(r.URL.Path)
	call.Webhook, call.Phase = ep.Webhook, ep.Phase

	version, req, body, decodeErr := s.readReview(r)
	if decodeErr == nil {
		call.setRequest(version, req)
		call.RequestFields = s.reviewFields(body, "request", "AdmissionRequest")
	}
	s.journal.begin(call)

	switch {
	case !registered:
		// Decoded anyway, so a journal entry shows what was misrouted.
		call.Err = "no endpoint registered on " + r.URL.Path
		s.writeError(w, &call, http.StatusNotFound, call.Err)
	case r.Method != http.MethodPost:
		call.Err = "method " + r.Method + " is not POST"
		s.writeError(w, &call, http.StatusMethodNotAllowed, call.Err)
	case decodeErr != nil:
		call.Err = decodeErr.Error()
		s.writeError(w, &call, http.StatusBadRequest, call.Err)
	default:
		s.act(w, r, ep.Behaviour, version, req, &call)
	}
}

func (s *Server) readReview(r *http.Request) (string, *admissionv1.AdmissionRequest, []byte, error) {
	// Reading to EOF matters beyond decoding: only then does net/http watch
	// the connection and cancel r.Context() when the client goes away.
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewBytes))
	if err != nil {
		return "", nil, nil, fmt.Errorf("read body: %w", err)
	}
	version, req, err := decodeReview(body)
	return version, req, body, err
}

// act carries out b for a decoded request.
func (s *Server) act(w http.ResponseWriter, r *http.Request, b Behaviour, version string, req *admissionv1.AdmissionRequest, call *Call) {
	call.Action = b.action()
	if (call.Action == Allow || call.Action == Patch) && s.fault != "" {
		// The harness's own tests: an injected fault (WithInjectedErrors).
		call.Err = "injected fault: " + s.fault
		s.writeError(w, call, http.StatusInternalServerError, call.Err)
		return
	}
	if b.Delay > 0 {
		timer := time.NewTimer(b.Delay)
		defer timer.Stop()
		if why := s.wait(r.Context(), timer.C); why != "" {
			call.Err = why + " during delay"
			abandon(w)
			return
		}
	}

	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true, Warnings: b.Warnings, AuditAnnotations: b.AuditAnnotations}
	switch call.Action {
	case Allow:
	case Deny:
		resp.Allowed = false
		resp.Result = &metav1.Status{Status: metav1.StatusFailure, Code: b.denyCode(), Message: b.Message, Reason: b.Reason}
		if b.Result != nil {
			resp.Result = b.Result
		}
	case PatchWithoutType:
		patch, err := jsonPatch(b.Patch)
		if err != nil {
			call.Err = err.Error()
			s.writeError(w, call, http.StatusInternalServerError, call.Err)
			return
		}
		resp.Patch = patch
	case PatchTypeWithoutPatch:
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &pt
	case Patch:
		patch, err := jsonPatch(b.Patch)
		if err != nil {
			call.Err = err.Error()
			s.writeError(w, call, http.StatusInternalServerError, call.Err)
			return
		}
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = patch, &pt
	case WrongUID:
		// Derived from the real UID so it can never equal it.
		resp.UID = "wrong-" + req.UID
		if err := attachPatch(resp, b.Patch); err != nil {
			call.Err = err.Error()
			s.writeError(w, call, http.StatusInternalServerError, call.Err)
			return
		}
	case OtherReviewVersion:
		version = map[string]string{reviewV1: reviewV1beta1, reviewV1beta1: reviewV1}[version]
		if err := attachPatch(resp, b.Patch); err != nil {
			call.Err = err.Error()
			s.writeError(w, call, http.StatusInternalServerError, call.Err)
			return
		}
	case NoTypeMeta:
		version = ""
		if err := attachPatch(resp, b.Patch); err != nil {
			call.Err = err.Error()
			s.writeError(w, call, http.StatusInternalServerError, call.Err)
			return
		}
	case WrongAPIVersion:
		version = unsupportedReviewV0
		if err := attachPatch(resp, b.Patch); err != nil {
			call.Err = err.Error()
			s.writeError(w, call, http.StatusInternalServerError, call.Err)
			return
		}
	case Hang:
		call.Err = s.wait(r.Context(), nil) + " while hanging"
		abandon(w)
		return
	case CloseConnection:
		if err := abandon(w); err != nil {
			call.Err = err.Error()
		}
		return
	case InternalError:
		s.writeError(w, call, http.StatusInternalServerError, "fake webhook: internal error")
		return
	case Malformed:
		s.write(w, call, http.StatusOK, "application/json", []byte(malformedBody))
		return
	case Raw:
		body, err := rawReview(version, req.UID, b.Response)
		if err != nil {
			call.Err = err.Error()
			s.writeError(w, call, http.StatusInternalServerError, call.Err)
			return
		}
		call.Allowed = b.Response["allowed"] == true
		s.write(w, call, http.StatusOK, "application/json", body)
		return
	}

	body, err := encodeReview(version, resp)
	if err != nil {
		call.Err = err.Error()
		s.writeError(w, call, http.StatusInternalServerError, call.Err)
		return
	}
	call.Allowed = resp.Allowed
	s.write(w, call, http.StatusOK, "application/json", body)
}

// attachPatch adds ops to an otherwise invalid answer, so that an apiserver
// that wrongly accepts the answer visibly applies the mutation.
func attachPatch(resp *admissionv1.AdmissionResponse, ops []PatchOperation) error {
	if len(ops) == 0 {
		return nil
	}
	patch, err := jsonPatch(ops)
	if err != nil {
		return err
	}
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = patch, &pt
	return nil
}

func jsonPatch(ops []PatchOperation) ([]byte, error) {
	if ops == nil {
		// "null" is not a patch; send the empty one.
		ops = []PatchOperation{}
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("encode patch: %w", err)
	}
	return patch, nil
}

// wait blocks until done fires (nil never fires), the client goes away or
// the server closes, and says why it stopped early ("" if done fired).
func (s *Server) wait(ctx context.Context, done <-chan time.Time) string {
	select {
	case <-done:
		return ""
	case <-ctx.Done():
		return "client went away"
	case <-s.stopping:
		return "server closed"
	}
}

// abandon drops the connection without a response. Returning from the
// handler instead would make net/http send an empty 200.
func abandon(w http.ResponseWriter) error {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return fmt.Errorf("cannot close the connection: %T is not a Hijacker", w)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return fmt.Errorf("hijack connection: %w", err)
	}
	return conn.Close()
}

func (s *Server) writeError(w http.ResponseWriter, call *Call, code int, msg string) {
	s.write(w, call, code, "text/plain; charset=utf-8", []byte(msg+"\n"))
}

// write sends a response and stamps the call as answered.
func (s *Server) write(w http.ResponseWriter, call *Call, code int, contentType string, body []byte) {
	call.RespondedAt, call.Responded = s.now()
	if code == http.StatusOK {
		call.AnswerFields = s.reviewFields(body, "response", "AdmissionResponse")
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	if _, err := w.Write(body); err != nil && call.Err == "" {
		call.Err = "write response: " + err.Error()
	}
}

func (s *Server) logCall(c Call) {
	s.log.V(1).Info("admission call",
		"seq", c.Seq, "path", c.Path, "webhook", c.Webhook, "uid", c.UID,
		"operation", c.Operation, "resource", c.Resource.Resource, "action", c.Action,
		"answered", c.Answered(), "allowed", c.Allowed, "err", c.Err,
		"duration", c.Finished-c.Received)
}
