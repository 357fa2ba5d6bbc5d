package pki_test

import (
	"crypto/x509"
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// A CA of the spec's own signs a serving certificate for a webhook; the
// webhook configuration's caBundle is the CA's certificate.
func Example() {
	ca, err := pki.NewCA("acme-webhook-ca")
	if err != nil {
		panic(err)
	}
	kp, err := ca.Serving("acme-webhook", "127.0.0.1", "acme.example.svc")
	if err != nil {
		panic(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		panic(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		panic(err)
	}
	_, err = leaf.Verify(x509.VerifyOptions{DNSName: "acme.example.svc", Roots: ca.Pool()})
	fmt.Println(err, len(ca.CertPEM()) > 0)
	// Output: <nil> true
}
