package parallel

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// The router passes each call to the worker its route names, with the
// route taken off the path, and drops the calls the worker drops.
func TestRouterPassesCallsToTheAnnouncedWorker(t *testing.T) {
	ca, err := pki.NewCA("router-test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	router, err := StartRouter("127.0.0.1:0", "127.0.0.1:443", nil, ca, dir, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	defer router.Close(context.Background())
	route, err := NewRoute()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakewebhook.New(ca, fakewebhook.WithAdvertisedAddress(router.Addr()), fakewebhook.WithPathPrefix(RoutePrefix(route)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	if err := Announce(dir, route, srv.ListenAddress()); err != nil {
		t.Fatal(err)
	}
	for path, action := range map[string]fakewebhook.Action{"/ns/validating/allow": fakewebhook.Allow, "/ns/validating/drop": fakewebhook.CloseConnection} {
		if err := srv.Register(fakewebhook.Endpoint{Path: path, Webhook: "w", Phase: fakewebhook.Validating, Behaviour: fakewebhook.Behaviour{Action: action}}); err != nil {
			t.Fatal(err)
		}
	}
	url := srv.URL("/ns/validating/allow")
	if want := "https://" + router.Addr() + "/w/" + route + "/ns/validating/allow"; url != want {
		t.Fatalf("URL %s, want %s", url, want)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}, DisableKeepAlives: true}}
	review := []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"","version":"v1","kind":"ConfigMap"},` +
		`"resource":{"group":"","version":"v1","resource":"configmaps"},"namespace":"ns","name":"cm","operation":"CREATE","userInfo":{},"object":{}}}`)
	resp, err := client.Post(url, "application/json", bytes.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Response struct {
			UID     string `json:"uid"`
			Allowed bool   `json:"allowed"`
		} `json:"response"`
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !answer.Response.Allowed || answer.Response.UID != "u1" {
		t.Errorf("through the router: %d %+v %v", resp.StatusCode, answer, err)
	}
	if calls := srv.Journal().ForPath("/ns/validating/allow"); len(calls) != 1 {
		t.Errorf("the worker's journal has %d calls on the path without the route", len(calls))
	}

	resp, err = client.Post(srv.URL("/ns/validating/drop"), "application/json", bytes.NewReader(review))
	if err == nil {
		resp.Body.Close()
		t.Errorf("a call the worker dropped was answered %d through the router; want the connection dropped", resp.StatusCode)
	}

	resp, err = client.Post("https://"+router.Addr()+"/w/0123456789abcdef/ns/x", "application/json", bytes.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unannounced route: %d", resp.StatusCode)
	}
	if _, err := router.target("/w/../../etc/passwd"); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("a route that is not one: %v", err)
	}
}
