package fakewebhook

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	admissionv1 "k8s.io/api/admission/v1"
)

func TestRegisterRejectsBadEndpoints(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.register("/taken", Mutating, Behaviour{})
	cases := []struct {
		name     string
		endpoint Endpoint
	}{
		{"empty path", Endpoint{Path: "", Phase: Mutating}},
		{"relative path", Endpoint{Path: "hook", Phase: Mutating}},
		{"duplicate path", Endpoint{Path: "/taken", Phase: Validating}},
		{"missing phase", Endpoint{Path: "/a"}},
		{"unknown phase", Endpoint{Path: "/a", Phase: "admitting"}},
		{"unknown action", Endpoint{Path: "/a", Phase: Mutating, Behaviour: Behaviour{Action: "Shrug"}}},
		{"negative delay", Endpoint{Path: "/a", Phase: Mutating, Behaviour: Behaviour{Delay: -time.Second}}},
		{"bad deny code", Endpoint{Path: "/a", Phase: Mutating, Behaviour: Behaviour{Action: Deny, Code: 42}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := h.srv.Register(tc.endpoint); err == nil {
				t.Fatal("Register accepted the endpoint")
			}
		})
	}
}

func TestSetBehaviourSwitchesAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	patch := []PatchOperation{{Op: "add", Path: "/metadata/labels", Value: map[string]string{}}}
	h.register("/switch", Mutating, Behaviour{})
	steps := []struct {
		behaviour   Behaviour
		wantAllowed bool
		wantAction  Action
		wantPatch   string
	}{
		{Behaviour{Action: Deny}, false, Deny, ""},
		{Behaviour{Action: Patch, Patch: patch}, true, Patch, `[{"op":"add","path":"/metadata/labels","value":{}}]`},
		{Behaviour{Action: Allow}, true, Allow, ""},
	}
	for i, step := range steps {
		if err := h.srv.SetBehaviour("/switch", step.behaviour); err != nil {
			t.Fatalf("step %d: SetBehaviour: %v", i, err)
		}
		// The server must have copied the slices.
		patch[0].Op = "remove"
		uid := "switch-" + string(step.wantAction)
		got, err := h.post(h.client, "/switch", reviewBody(t, reviewV1, typesUID(uid)))
		if err != nil {
			t.Fatalf("step %d: post: %v", i, err)
		}
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(got.body, &review); err != nil || review.Response == nil {
			t.Fatalf("step %d: answer %q: %v", i, got.body, err)
		}
		if string(review.Response.Patch) != step.wantPatch {
			t.Errorf("step %d: patch = %s, want %s", i, review.Response.Patch, step.wantPatch)
		}
		c := h.callFor(typesUID(uid))
		if c.Action != step.wantAction || c.Allowed != step.wantAllowed {
			t.Errorf("step %d: action %s allowed %v, want %s %v", i, c.Action, c.Allowed, step.wantAction, step.wantAllowed)
		}
		patch[0].Op = "add"
	}
	if err := h.srv.SetBehaviour("/nowhere", Behaviour{}); err == nil {
		t.Error("SetBehaviour accepted an unregistered path")
	}
	if err := h.srv.SetBehaviour("/switch", Behaviour{Action: "Shrug"}); err == nil {
		t.Error("SetBehaviour accepted an unknown action")
	}
}

func TestRequestsThatGetNoReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.register("/hook", Validating, Behaviour{})
	h.register("/gone", Validating, Behaviour{})
	h.srv.Unregister("/gone")
	cases := []struct {
		name       string
		method     string
		path       string
		body       string
		wantStatus int
		wantUID    string // recorded when the body was a valid review
		wantHook   string
	}{
		{"unregistered path", http.MethodPost, "/nope", string(reviewBody(t, reviewV1, "nope")), 404, "nope", ""},
		{"unregistered again", http.MethodPost, "/gone", string(reviewBody(t, reviewV1, "gone")), 404, "gone", ""},
		{"not JSON", http.MethodPost, "/hook", "hello", 400, "", "hook/hook"},
		{"review v0", http.MethodPost, "/hook", `{"apiVersion":"admission.k8s.io/v0","kind":"AdmissionReview","request":{"uid":"x"}}`, 400, "", "hook/hook"},
		{"no request", http.MethodPost, "/hook", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, 400, "", "hook/hook"},
		{"GET", http.MethodGet, "/hook", "", 405, "", "hook/hook"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Subtests run one at a time, so this request gets the next Seq.
			seq := int64(h.srv.Journal().Len() + 1)
			req, err := http.NewRequest(tc.method, h.srv.URL(tc.path), strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := h.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			c, err := waitSeq(h.srv.Journal(), seq)
			if err != nil {
				t.Fatal(err)
			}
			if c.Path != tc.path || string(c.UID) != tc.wantUID || c.Webhook != tc.wantHook ||
				c.Err == "" || c.Allowed || c.Action != "" || !c.Answered() {
				t.Errorf("call = %+v", c)
			}
		})
	}
}

func TestServingCertificateHosts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, WithHosts("webhook.example.test", "10.1.2.3"), WithListenAddress("0.0.0.0:0"))
	if !strings.HasPrefix(h.srv.Address(), "127.0.0.1:") {
		t.Errorf("Address() = %q, want a 127.0.0.1 address for a wildcard listener", h.srv.Address())
	}
	if got, want := h.srv.URL("/x"), "https://"+h.srv.Address()+"/x"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
	if string(h.srv.CABundle()) != string(h.ca.CertPEM()) {
		t.Error("CABundle is not the CA certificate")
	}
	cases := []struct {
		serverName string
		wantOK     bool
	}{
		{"127.0.0.1", true},
		{"localhost", true},
		{"webhook.example.test", true},
		{"10.1.2.3", true},
		{"other.example.test", false},
	}
	for _, tc := range cases {
		t.Run(tc.serverName, func(t *testing.T) {
			conn, err := tls.Dial("tcp", h.srv.Address(), &tls.Config{RootCAs: h.ca.Pool(), ServerName: tc.serverName})
			if err == nil {
				if proto := conn.ConnectionState().NegotiatedProtocol; proto == "h2" {
					t.Errorf("negotiated %s; only HTTP/1.1 lets an action drop one request's connection", proto)
				}
				conn.Close()
			}
			if gotOK := err == nil; gotOK != tc.wantOK {
				t.Errorf("handshake for %q: ok=%v, want %v (%v)", tc.serverName, gotOK, tc.wantOK, err)
			}
		})
	}
}

func TestLoggerSeesCalls(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{Verbosity: 1})
	h := newHarness(t, WithLogger(logger))
	h.register("/logged", Mutating, Behaviour{})
	if _, err := h.post(h.client, "/logged", reviewBody(t, reviewV1, "logged")); err != nil {
		t.Fatal(err)
	}
	h.callFor("logged")
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 1 || !strings.Contains(lines[0], `"uid"="logged"`) {
		t.Errorf("log lines = %q", lines)
	}
}

func TestReservedAddressRefusesConnectionsAndCannotBeTaken(t *testing.T) {
	t.Parallel()
	addr, release, err := ReserveUnusedAddress()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = release() })
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Fatalf("another listener took the reserved address %s", addr)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("address = %q", addr)
	}
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		conn.Close()
		t.Fatal("dial succeeded")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial error = %v, want connection refused", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the address stays taken after release: %v", err)
	}
	ln.Close()
}

func TestNewRejectsBadArguments(t *testing.T) {
	t.Parallel()
	if _, err := New(nil); err == nil {
		t.Error("New accepted a nil CA")
	}
	h := newHarness(t)
	if _, err := New(h.ca, WithListenAddress(h.srv.Address())); err == nil {
		t.Error("New listened on an address already in use")
	}
}
