// Package pki is a tiny certificate authority for conformance tests: it
// issues the serving certificates of fake webhooks and the client
// certificates the harness uses to authenticate to kube-apiserver.
//
// Keys are ECDSA P-256 because they are fast to generate; every test run
// creates fresh ones, so nothing here is meant to be long-lived.
package pki
