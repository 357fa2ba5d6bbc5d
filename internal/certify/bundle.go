// Package certify writes and verifies certification bundles: one tar.gz
// holding a run's reports and run log, the cluster's fingerprint read from
// the cluster itself, the harness's identity with digests of its contract
// inventory and of the run's case selection, a manifest of every file's
// sha256 and an Ed25519 signature over the manifest (standard library
// crypto only).
package certify

import (
	"archive/tar"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/targz"
)

// The bundle's fixed file names.
const (
	APIVersion      = "admission-conformance.io/v1alpha1"
	ManifestName    = "manifest.json"
	SignatureName   = "manifest.sig"
	FingerprintName = "fingerprint.json"
	HarnessName     = "harness.json"
	// DefaultName is the bundle's file name in the report dir.
	DefaultName = "certification.tar.gz"
)

// Required are the files every bundle holds besides the manifest and its
// signature; OptionalFiles may be there too (run.log, report.html).
var (
	Required      = []string{results.FileName, report.FileName, junit.FileName, FingerprintName, HarnessName}
	OptionalFiles = []string{"report.html", "run.log"}
)

// Limits on what Read accepts.
const (
	maxFiles     = 32
	maxFileBytes = 512 << 20
)

// FileDigest is one file of the bundle as the manifest records it.
type FileDigest struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Manifest is manifest.json: the digest of every other file of the
// bundle except the signature. PublicKey is the signer's Ed25519 public key
// (base64), for information only: a reviewer checks the signature with the
// key the vendor published (verify --key), never with this one alone.
type Manifest struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Files      []FileDigest `json:"files"`
	PublicKey  string       `json:"publicKey"`
}

// Digest is "sha256:" and the hex sha256 of data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// KeyID names a public key: the digest of its 32 raw bytes.
func KeyID(pub ed25519.PublicKey) string { return Digest(pub) }

// Write builds the bundle from files (name → content; manifest.json and
// manifest.sig are added here), signs the manifest with key and writes it
// to path. Entries carry mtime (the run's end) so a bundle is reproducible.
func Write(path string, files map[string][]byte, key ed25519.PrivateKey, mtime time.Time) (int64, error) {
	data, err := Build(files, key, mtime)
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// Build returns the bundle's bytes (see Write).
func Build(files map[string][]byte, key ed25519.PrivateKey, mtime time.Time) ([]byte, error) {
	for _, name := range Required {
		if _, ok := files[name]; !ok {
			return nil, fmt.Errorf("bundle lacks %s", name)
		}
	}
	manifest, err := ManifestOf(files, key.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, err
	}
	all := map[string][]byte{}
	for n, d := range files {
		all[n] = d
	}
	all[ManifestName] = manifest
	all[SignatureName] = Sign(manifest, key)
	return Pack(all, mtime)
}

// ManifestOf is manifest.json for files.
func ManifestOf(files map[string][]byte, pub ed25519.PublicKey) ([]byte, error) {
	m := Manifest{APIVersion: APIVersion, Kind: "CertificationManifest", PublicKey: base64.StdEncoding.EncodeToString(pub)}
	for _, name := range sortedNames(files) {
		if name == ManifestName || name == SignatureName {
			return nil, fmt.Errorf("%s is written by the bundle itself", name)
		}
		m.Files = append(m.Files, FileDigest{Name: name, Size: int64(len(files[name])), SHA256: Digest(files[name])})
	}
	data, err := json.MarshalIndent(m, "", "  ")
	return append(data, '\n'), err
}

// Sign is manifest.sig: the base64 Ed25519 signature of manifest.
func Sign(manifest []byte, key ed25519.PrivateKey) []byte {
	return []byte(base64.StdEncoding.EncodeToString(ed25519.Sign(key, manifest)) + "\n")
}

// Pack writes files as a tar.gz, manifest first, then by name.
func Pack(files map[string][]byte, mtime time.Time) ([]byte, error) {
	names := sortedNames(files)
	sort.SliceStable(names, func(i, j int) bool { return rank(names[i]) < rank(names[j]) })
	entries := make([]targz.File, len(names))
	for i, name := range names {
		entries[i] = targz.File{Name: name, Data: files[name]}
	}
	return targz.Pack(entries, mtime)
}

func rank(name string) int {
	switch name {
	case ManifestName:
		return 0
	case SignatureName:
		return 1
	}
	return 2
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Unpack reads a bundle's files. It refuses what a bundle never holds:
// directories, links, paths, duplicate names, oversized files.
func Unpack(r io.Reader) (map[string][]byte, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a gzip file: %w", err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not a tar archive: %w", err)
		}
		switch {
		case hdr.Typeflag != tar.TypeReg:
			return nil, fmt.Errorf("entry %q is not a regular file", hdr.Name)
		case hdr.Name == "" || strings.ContainsAny(hdr.Name, `/\`) || hdr.Name == "." || hdr.Name == "..":
			return nil, fmt.Errorf("entry %q is not a plain file name", hdr.Name)
		case files[hdr.Name] != nil:
			return nil, fmt.Errorf("entry %q appears twice", hdr.Name)
		case len(files) >= maxFiles:
			return nil, fmt.Errorf("more than %d entries", maxFiles)
		case hdr.Size > maxFileBytes:
			return nil, fmt.Errorf("entry %q is larger than %d bytes", hdr.Name, maxFileBytes)
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxFileBytes+1))
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", hdr.Name, err)
		}
		files[hdr.Name] = data
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("not a gzip file: %w", err)
	}
	return files, nil
}
