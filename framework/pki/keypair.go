package pki

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeyPair is a PEM-encoded certificate and its PEM-encoded private key.
type KeyPair struct {
	CertPEM []byte
	KeyPEM  []byte
}

// TLSCertificate parses the pair for use in a tls.Config.
func (k KeyPair) TLSCertificate() (tls.Certificate, error) {
	cert, err := tls.X509KeyPair(k.CertPEM, k.KeyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("parse key pair: %w", err)
	}
	return cert, nil
}

// Write stores the pair as dir/base.crt and dir/base.key, the form
// kube-apiserver flags (--tls-cert-file, --client-ca-file, ...) expect.
// The key file is mode 0600 even if it already existed with a wider mode.
func (k KeyPair) Write(dir, base string) (certFile, keyFile string, err error) {
	if base == "" || strings.ContainsAny(base, `/\`) {
		return "", "", fmt.Errorf("invalid file base name %q", base)
	}
	certFile = filepath.Join(dir, base+".crt")
	keyFile = filepath.Join(dir, base+".key")
	if err := writeFile(certFile, k.CertPEM, 0o644); err != nil {
		return "", "", err
	}
	if err := writeFile(keyFile, k.KeyPEM, 0o600); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

// writeFile writes data and then enforces perm, because os.WriteFile keeps
// the mode of a file that already exists.
func writeFile(name string, data []byte, perm os.FileMode) error {
	if len(data) == 0 {
		return errors.New("refusing to write empty " + name)
	}
	if err := os.WriteFile(name, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Chmod(name, perm); err != nil {
		return fmt.Errorf("chmod %s: %w", name, err)
	}
	return nil
}
