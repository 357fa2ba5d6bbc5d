package fakewebhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// testHarness is a running server and a client that trusts it.
type testHarness struct {
	t      *testing.T
	ca     *pki.CA
	srv    *Server
	client *http.Client
}

func newHarness(t *testing.T, opts ...Option) *testHarness {
	t.Helper()
	ca, err := pki.NewCA("fakewebhook-test")
	if err != nil {
		t.Fatalf("NewCA: %v", err)
	}
	srv, err := New(ca, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	h := &testHarness{t: t, ca: ca, srv: srv}
	h.client = h.newClient(0)
	return h
}

// newClient returns a client that trusts the server and never reuses
// connections, so a closed connection affects one request only.
func (h *testHarness) newClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: h.ca.Pool()},
			DisableKeepAlives: true,
		},
	}
}

func (h *testHarness) register(path string, phase Phase, b Behaviour) {
	h.t.Helper()
	if err := h.srv.Register(Endpoint{Path: path, Webhook: "hook" + path, Phase: phase, Behaviour: b}); err != nil {
		h.t.Fatalf("Register %s: %v", path, err)
	}
}

type reply struct {
	status      int
	contentType string
	body        []byte
}

func (h *testHarness) post(client *http.Client, path string, body []byte) (reply, error) {
	resp, err := client.Post(h.srv.URL(path), "application/json", bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	return reply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: data}, nil
}

// callFor waits for the journal entry of uid, which is written just after
// the response, so a client can see the answer before the entry exists.
func (h *testHarness) callFor(uid types.UID) Call {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := h.srv.Journal().WaitFor(ctx, func(c Call) bool { return c.UID == uid })
	if err != nil {
		h.t.Fatalf("no journal entry for %s: %v", uid, err)
	}
	return c
}

const testUser = "system:serviceaccount:kube-system:tester"

// reviewBody builds a CREATE pods request as kube-apiserver would send it,
// using the real v1 or v1beta1 types.
func reviewBody(t *testing.T, version string, uid types.UID) []byte {
	t.Helper()
	dryRun := true
	object := runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"}}`)}
	user := authenticationv1.UserInfo{Username: testUser, Groups: []string{"system:authenticated"}}
	kind := metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}
	resource := metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	var review any
	switch version {
	case reviewV1:
		review = admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: version, Kind: reviewKind},
			Request: &admissionv1.AdmissionRequest{
				UID: uid, Kind: kind, Resource: resource, RequestKind: &kind, RequestResource: &resource,
				Name: "p", Namespace: "ns", Operation: admissionv1.Create, UserInfo: user,
				Object: object, DryRun: &dryRun,
			},
		}
	case reviewV1beta1:
		review = admissionv1beta1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: version, Kind: reviewKind},
			Request: &admissionv1beta1.AdmissionRequest{
				UID: uid, Kind: kind, Resource: resource, RequestKind: &kind, RequestResource: &resource,
				Name: "p", Namespace: "ns", Operation: admissionv1beta1.Create, UserInfo: user,
				Object: object, DryRun: &dryRun,
			},
		}
	default:
		t.Fatalf("unknown review version %q", version)
	}
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	return body
}
