// Package fakewebhook is a programmable admission webhook server for
// conformance tests. Each registered path answers AdmissionReview requests
// (admission.k8s.io/v1 and v1beta1) with a behaviour that tests can replace
// at run time, including misbehaviours a real webhook may show: hanging,
// dropping the connection, HTTP errors, malformed or mismatched answers.
//
// Every call is recorded in a Journal so that tests can assert what the
// apiserver sent, in which order and when, even for calls the apiserver
// abandoned.
package fakewebhook
