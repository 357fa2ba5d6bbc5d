package fakewebhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// The fake server answers each registered path with its behaviour and
// journals every call. Specs get the run's server as
// harness.Framework.Env.Webhooks and register through
// Framework.RegisterValidating; here one is started by hand and called as
// an apiserver would.
func Example() {
	ca, err := pki.NewCA("example")
	if err != nil {
		panic(err)
	}
	s, err := fakewebhook.New(ca)
	if err != nil {
		panic(err)
	}
	defer s.Close(context.Background())
	if err := s.Register(fakewebhook.Endpoint{Path: "/acme/forbidden", Webhook: "forbidden.acme.example", Phase: fakewebhook.Validating,
		Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny, Code: 403, Message: "acme: refused"}}); err != nil {
		panic(err)
	}

	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  &admissionv1.AdmissionRequest{UID: "uid-1", Operation: admissionv1.Create, Namespace: "ns", Name: "cm"},
	}
	body, _ := json.Marshal(review)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}}
	resp, err := client.Post(s.URL("/acme/forbidden"), "application/json", bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var answer admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		panic(err)
	}
	fmt.Println(answer.Response.Allowed, answer.Response.Result.Code, answer.Response.Result.Message)

	calls := s.Journal().ForPath("/acme/forbidden")
	fmt.Println(len(calls), calls[0].Webhook, calls[0].Operation, calls[0].Action)
	// Output:
	// false 403 acme: refused
	// 1 forbidden.acme.example CREATE Deny
}
