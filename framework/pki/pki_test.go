package pki

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"slices"
	"testing"
)

func parseLeaf(t *testing.T, kp KeyPair) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(kp.CertPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("certificate PEM does not decode: %q", kp.CertPEM)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("parse certificate: %v", err)
	}
	return cert
}

func newTestCA(t *testing.T, name string) *CA {
	t.Helper()
	ca, err := NewCA(name)
	if err != nil {
		t.Fatalf("NewCA: %v", err)
	}
	return ca
}

func TestServingVerifiesOnlyForListedHosts(t *testing.T) {
	ca := newTestCA(t, "test-ca")
	kp, err := ca.Serving("webhook", "127.0.0.1", "::1", "localhost", "webhook.example.svc")
	if err != nil {
		t.Fatalf("Serving: %v", err)
	}
	if _, err := kp.TLSCertificate(); err != nil {
		t.Fatalf("TLSCertificate: %v", err)
	}
	leaf := parseLeaf(t, kp)

	cases := []struct {
		host   string
		wantOK bool
	}{
		{"127.0.0.1", true},
		{"::1", true},
		{"localhost", true},
		{"webhook.example.svc", true},
		{"127.0.0.2", false},
		{"other.example.svc", false},
		{"example.svc", false},
	}
	for _, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			_, err := leaf.Verify(x509.VerifyOptions{
				DNSName:   tc.host,
				Roots:     ca.Pool(),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			if gotOK := err == nil; gotOK != tc.wantOK {
				t.Fatalf("verify for %q: ok=%v, want %v (err: %v)", tc.host, gotOK, tc.wantOK, err)
			}
		})
	}
}

func TestClientCarriesUserAndGroups(t *testing.T) {
	ca := newTestCA(t, "test-ca")
	cases := []struct {
		name   string
		user   string
		groups []string
	}{
		{"no groups", "alice", nil},
		{"one group", "bob", []string{"system:masters"}},
		{"several groups", "system:admin", []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kp, err := ca.Client(tc.user, tc.groups...)
			if err != nil {
				t.Fatalf("Client: %v", err)
			}
			leaf := parseLeaf(t, kp)
			if leaf.Subject.CommonName != tc.user {
				t.Errorf("CN = %q, want %q", leaf.Subject.CommonName, tc.user)
			}
			if !slices.Equal(leaf.Subject.Organization, tc.groups) {
				t.Errorf("O = %q, want %q", leaf.Subject.Organization, tc.groups)
			}
			if _, err := leaf.Verify(x509.VerifyOptions{
				Roots:     ca.Pool(),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
			}); err != nil {
				t.Errorf("client certificate does not verify for client auth: %v", err)
			}
			if _, err := leaf.Verify(x509.VerifyOptions{
				Roots:     ca.Pool(),
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			}); err == nil {
				t.Errorf("client certificate unexpectedly verifies for server auth")
			}
		})
	}
}

func TestCertificateFromAnotherCADoesNotVerify(t *testing.T) {
	ours := newTestCA(t, "ours")
	theirs := newTestCA(t, "theirs")
	serving, err := theirs.Serving("webhook", "127.0.0.1")
	if err != nil {
		t.Fatalf("Serving: %v", err)
	}
	client, err := theirs.Client("mallory")
	if err != nil {
		t.Fatalf("Client: %v", err)
	}
	cases := []struct {
		name  string
		kp    KeyPair
		usage x509.ExtKeyUsage
	}{
		{"serving", serving, x509.ExtKeyUsageServerAuth},
		{"client", client, x509.ExtKeyUsageClientAuth},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseLeaf(t, tc.kp).Verify(x509.VerifyOptions{
				Roots:     ours.Pool(),
				KeyUsages: []x509.ExtKeyUsage{tc.usage},
			})
			if err == nil {
				t.Fatal("certificate signed by another CA verified")
			}
		})
	}
}

func TestInvalidInputsAreErrors(t *testing.T) {
	ca := newTestCA(t, "test-ca")
	cases := []struct {
		name string
		call func() error
	}{
		{"CA without name", func() error { _, err := NewCA(""); return err }},
		{"serving without hosts", func() error { _, err := ca.Serving("x"); return err }},
		{"serving with empty host", func() error { _, err := ca.Serving("x", "localhost", ""); return err }},
		{"client without user", func() error { _, err := ca.Client("", "group"); return err }},
		{"write with path in base", func() error { _, _, err := KeyPair{}.Write(t.TempDir(), "a/b"); return err }},
		{"write empty pair", func() error { _, _, err := KeyPair{}.Write(t.TempDir(), "x"); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); err == nil {
				t.Fatal("expected an error")
			}
		})
	}
}

func TestWriteRestrictsKeyFile(t *testing.T) {
	ca := newTestCA(t, "test-ca")
	kp, err := ca.Client("alice")
	if err != nil {
		t.Fatalf("Client: %v", err)
	}
	dir := t.TempDir()
	// A pre-existing world-readable key must be tightened, not kept.
	if err := os.WriteFile(dir+"/alice.key", []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err := kp.Write(dir, "alice")
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	cases := []struct {
		file     string
		wantMode os.FileMode
		wantData []byte
	}{
		{certFile, 0o644, kp.CertPEM},
		{keyFile, 0o600, kp.KeyPEM},
	}
	for _, tc := range cases {
		info, err := os.Stat(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != tc.wantMode {
			t.Errorf("%s mode = %v, want %v", tc.file, info.Mode().Perm(), tc.wantMode)
		}
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != string(tc.wantData) {
			t.Errorf("%s content differs from the key pair", tc.file)
		}
	}
}

func TestLoadCAIsTheSameCA(t *testing.T) {
	ca, err := NewCA("load-test")
	if err != nil {
		t.Fatal(err)
	}
	key, err := ca.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadCA(ca.CertPEM(), key)
	if err != nil {
		t.Fatal(err)
	}
	// A certificate the loaded CA issues verifies against the original.
	kp, err := loaded.Serving("x", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("a certificate of the loaded CA does not verify: %v", err)
	}
	other, _ := NewCA("other")
	otherKey, _ := other.KeyPEM()
	if _, err := LoadCA(ca.CertPEM(), otherKey); err == nil {
		t.Errorf("a key of another CA is accepted")
	}
}
