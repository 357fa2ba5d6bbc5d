package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

const (
	// backdate absorbs clock skew between the test host and the cluster
	// nodes (kind containers, VMs) that will verify these certificates.
	backdate = time.Hour
	// caLifetime outlives every leaf so that a leaf issued late in a run is
	// never valid longer than its issuer.
	caLifetime   = 7 * 24 * time.Hour
	leafLifetime = 24 * time.Hour
)

// CA is a self-signed certificate authority held in memory.
type CA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

// NewCA creates a self-signed CA with a fresh key.
func NewCA(commonName string) (*CA, error) {
	if commonName == "" {
		return nil, errors.New("CA common name is empty")
	}
	key, err := newKey()
	if err != nil {
		return nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(caLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("self-sign CA %q: %w", commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	return &CA{cert: cert, key: key, certPEM: encodeCert(der)}, nil
}

// CertPEM is the CA certificate, e.g. for a webhook's caBundle or
// kube-apiserver's --client-ca-file.
func (ca *CA) CertPEM() []byte {
	return append([]byte(nil), ca.certPEM...)
}

// Pool returns a new pool holding only this CA; a fresh pool per call
// because x509.CertPool is mutable and callers may add to theirs.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// Serving issues a server certificate. Each host is an IP address (put in
// IPAddresses) or a DNS name (put in DNSNames); clients ignore the common
// name, so at least one host is required.
func (ca *CA) Serving(commonName string, hosts ...string) (KeyPair, error) {
	if len(hosts) == 0 {
		return KeyPair{}, errors.New("serving certificate needs at least one host")
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		switch ip := net.ParseIP(h); {
		case h == "":
			return KeyPair{}, errors.New("serving certificate host is empty")
		case ip != nil:
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		default:
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return ca.issue(tmpl)
}

// Client issues a client-authentication certificate. kube-apiserver's x509
// authenticator takes the user name from CN and the groups from O.
func (ca *CA) Client(user string, groups ...string) (KeyPair, error) {
	if user == "" {
		return KeyPair{}, errors.New("client certificate user is empty")
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return ca.issue(tmpl)
}

// issue completes a leaf template with the fields every leaf shares and
// signs it with the CA key.
func (ca *CA) issue(tmpl *x509.Certificate) (KeyPair, error) {
	key, err := newKey()
	if err != nil {
		return KeyPair{}, err
	}
	serial, err := newSerial()
	if err != nil {
		return KeyPair{}, err
	}
	now := time.Now()
	tmpl.SerialNumber = serial
	tmpl.NotBefore = now.Add(-backdate)
	tmpl.NotAfter = now.Add(leafLifetime)
	// ECDSA keys only sign; KeyEncipherment would be meaningless.
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("sign certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("marshal private key: %w", err)
	}
	return KeyPair{
		CertPEM: encodeCert(der),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func newKey() (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	return key, nil
}

// newSerial returns a random positive 128-bit serial, so certificates from
// repeated runs never collide in a verifier's cache.
func newSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generate serial: %w", err)
	}
	return serial.Add(serial, big.NewInt(1)), nil
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// ServingFunc returns a function that makes, for the hosts it is given, a
// serving certificate signed by a new CA called commonName, and returns it
// with that CA's certificate (PEM): for a webhook server whose
// configuration needs a caBundle (reference/initializers/install.Options.Serving).
func ServingFunc(commonName string) func(hosts []string) (tls.Certificate, []byte, error) {
	return func(hosts []string) (tls.Certificate, []byte, error) {
		ca, err := NewCA(commonName)
		if err != nil {
			return tls.Certificate{}, nil, err
		}
		kp, err := ca.Serving(commonName, hosts...)
		if err != nil {
			return tls.Certificate{}, nil, err
		}
		cert, err := kp.TLSCertificate()
		if err != nil {
			return tls.Certificate{}, nil, err
		}
		return cert, ca.CertPEM(), nil
	}
}
