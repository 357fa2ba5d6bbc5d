package quiet

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const tick = time.Millisecond

// process is one process of a run: its gate and a client whose writes go
// through it, to a server counting them.
type process struct {
	gate   *Gate
	client *http.Client
}

func newRun(t *testing.T, n int) (url string, served *atomic.Int32, procs []process) {
	t.Helper()
	served = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	for range n {
		g, err := Open(dir, tick)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, process{gate: g, client: &http.Client{Transport: g.Wrap(http.DefaultTransport)}})
	}
	return srv.URL, served, procs
}

// send makes one request and reports on done when it returns.
func send(t *testing.T, p process, method, url string) <-chan error {
	done := make(chan error, 1)
	go func() {
		req, err := http.NewRequest(method, url, strings.NewReader("{}"))
		if err == nil {
			var resp *http.Response
			if resp, err = p.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		done <- err
	}()
	return done
}

func returned(done <-chan error, within time.Duration) bool {
	select {
	case <-done:
		return true
	case <-time.After(within):
		return false
	}
}

func TestHoldKeepsOtherProcessesWritesOfTheKindWaiting(t *testing.T) {
	base, served, procs := newRun(t, 2)
	holder, other := procs[0], procs[1]
	release, err := holder.gate.Hold(context.Background(), WebhookConfigurations)
	if err != nil {
		t.Fatal(err)
	}
	vwc := base + "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
	mwc := base + "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/x"
	vap := base + "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	blocked := []<-chan error{send(t, other, http.MethodPost, vwc), send(t, other, http.MethodDelete, mwc)}
	passing := map[string]<-chan error{
		"the holder's own write":         send(t, holder, http.MethodPost, vwc),
		"another kind":                   send(t, other, http.MethodPost, vap),
		"a read of the kind":             send(t, other, http.MethodGet, vwc),
		"a dry run of the kind":          send(t, other, http.MethodPost, vwc+"?dryRun=All"),
		"a write of another group":       send(t, other, http.MethodPost, base+"/api/v1/namespaces/x/configmaps"),
		"a resource named like the kind": send(t, other, http.MethodPost, base+"/apis/example.com/v1/validatingwebhookconfigurations"),
	}
	for what, done := range passing {
		if !returned(done, 5*time.Second) {
			t.Errorf("%s waited while webhook configurations were held", what)
		}
	}
	for _, done := range blocked {
		if returned(done, 200*time.Millisecond) {
			t.Fatalf("another process wrote a held kind (%d requests served)", served.Load())
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for _, done := range blocked {
		if !returned(done, 5*time.Second) {
			t.Fatal("a write still waits after release")
		}
	}
}

func TestHoldWaitsForWritesInFlight(t *testing.T) {
	dir := t.TempDir()
	writer, err := Open(dir, tick)
	if err != nil {
		t.Fatal(err)
	}
	holder, err := Open(dir, tick)
	if err != nil {
		t.Fatal(err)
	}
	inFlight, finish := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(inFlight)
		<-finish
	}))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: writer.Wrap(http.DefaultTransport)}
	go func() {
		resp, err := client.Post(srv.URL+"/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicybindings", "application/json", nil)
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-inFlight
	held := make(chan error, 1)
	go func() {
		_, err := holder.Hold(context.Background(), MutatingAdmissionPolicies)
		held <- err
	}()
	// A hold of another kind does not wait for it.
	other, err := Open(dir, tick)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	release, err := other.Hold(ctx, ValidatingAdmissionPolicies)
	if err != nil {
		t.Fatalf("a hold of validating policies waited for a mutating policy write: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if returned(held, 200*time.Millisecond) {
		t.Fatal("Hold returned while a policy write was in flight")
	}
	close(finish)
	select {
	case err := <-held:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Hold did not return after the write ended")
	}
}

func TestWaitsEndWithTheirContext(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, tick)
	b, _ := Open(dir, tick)
	if _, err := a.Hold(context.Background(), WebhookConfigurations, ValidatingAdmissionPolicies); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	// A second holder of a held kind waits, and gives up with its context,
	// holding nothing.
	if _, err := b.Hold(ctx, ValidatingAdmissionPolicies); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Hold beside another holder: %v, want the context's deadline", err)
	}
	if b.holding() {
		t.Fatal("a failed Hold left the kind marked held")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, "http://127.0.0.1:1/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/x", nil)
	if _, err := b.Wrap(http.DefaultTransport).RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("write of a held kind: %v, want the context's deadline", err)
	}
}

func TestKindOfWrite(t *testing.T) {
	for path, want := range map[string]Kind{
		"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations":          WebhookConfigurations,
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/a":          WebhookConfigurations,
		"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/a/status":     ValidatingAdmissionPolicies,
		"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings":          MutatingAdmissionPolicies,
		"/apis/admissionregistration.k8s.io/v1alpha1/somethingnewnextrelease":            ValidatingAdmissionPolicies,
		"/apis/admissionregistration.k8s.io/v1":                                          "",
		"/apis/admissionregistration.k8s.io":                                             "",
		"/api/v1/namespaces/admissionregistration.k8s.io/configmaps":                     "",
		"/apis/admission-conformance.io/v1/namespaces/admissionregistration.k8s.io/x/y/": "",
	} {
		r := httptest.NewRequest(http.MethodPost, path, nil)
		if got := kindOfWrite(r); got != want {
			t.Errorf("POST %s: kind %q, want %q", path, got, want)
		}
	}
}

func TestLastWriteIsSharedByTheRunsProcesses(t *testing.T) {
	base, _, procs := newRun(t, 2)
	local := Local()
	for _, g := range []*Gate{procs[1].gate, local} {
		if !g.LastWrite(ValidatingAdmissionPolicies).IsZero() {
			t.Fatal("a kind never written has a last write")
		}
	}
	before := time.Now().Add(-time.Second) // file times may be coarse
	if err := <-send(t, procs[0], http.MethodPatch, base+"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/b"); err != nil {
		t.Fatal(err)
	}
	if got := procs[1].gate.LastWrite(ValidatingAdmissionPolicies); got.Before(before) {
		t.Fatalf("another process's write is not seen: last write %s", got)
	}
	if got := procs[1].gate.LastWrite(WebhookConfigurations); !got.IsZero() {
		t.Fatalf("a policy write counted as a webhook configuration write: %s", got)
	}
	client := &http.Client{Transport: local.Wrap(http.DefaultTransport)}
	resp, err := client.Post(base+"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if local.LastWrite(WebhookConfigurations).Before(before) {
		t.Fatal("a local gate does not note its process's writes")
	}
	release, err := local.Hold(context.Background(), WebhookConfigurations)
	if err != nil || release() != nil {
		t.Fatal("a local gate's Hold failed")
	}
}
