package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/certify"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/engine"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
)

// The tamper tests build bundles without a cluster: results made of this
// harness's registered specs (one case each), the reports written from
// them as a run writes them, a made-up fingerprint, signed with a vendor
// key; then change them as an attacker would and check verify refuses.

var certT0 = time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)

// certResults is a run of every registered spec, one case each, all
// passed; failed names a case (ShortName) that failed instead.
func certResults(failed string) results.Results {
	res := results.Results{APIVersion: results.APIVersion, Kind: results.Kind, HarnessVersion: version,
		Cluster:   results.Cluster{Provider: "embedded", Topology: "embedded: 1 apiserver(s), 1 node", KubernetesVersion: "v1.37.2"},
		StartedAt: certT0, FinishedAt: certT0.Add(70 * time.Second)}
	for _, s := range spec.All() {
		var fs []string
		for _, f := range s.Features {
			fs = append(fs, string(f))
		}
		c := results.Spec{Suite: s.Suite, ShortName: s.ShortName, Name: s.ShortName + " does what it promises", State: results.Passed,
			Features: fs, Profile: string(s.Profile), Seed: s.Seed, Duration: 0.25}
		if s.ShortName == failed {
			c.State = results.Failed
			c.Message = "Expected\n    <bool>: false\nto be true"
			c.Location = "suites/x/x.go:1"
			c.Journal = &results.JournalExcerpt{Calls: []results.JournalCall{{Seq: 1, Webhook: "w", Phase: "mutating", Operation: "CREATE", Answered: true}}}
		}
		res.Features.Declared = append(res.Features.Declared, fs...)
		res.Specs = append(res.Specs, c)
	}
	res.Summarize(fields.Cover)
	return res
}

func certFingerprint() certify.Fingerprint {
	return certify.Fingerprint{APIVersion: certify.APIVersion, Kind: "Fingerprint", CollectedAt: certT0,
		ServerVersion:     certify.Value{Value: "v1.37.2", Source: "GET /version"},
		KubernetesVersion: certify.Value{Value: "v1.37.2", Source: "GET /version"},
		GitCommit:         certify.Value{Value: "0123456789abcdef", Source: "GET /version"},
		FeatureGates:      certify.Value{Value: []string{"AdmissionWebhookMatchConditions"}, Source: "GET /metrics"},
		AdmissionPlugins:  certify.Value{Value: []string{"MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"}, Source: "GET /metrics"},
		APIServerReplicas: certify.Value{Value: 1, Source: "Leases"},
		KubeletVersions:   certify.Value{Value: map[string]string{"node-0": "v1.37.2"}, Source: "Nodes"},
		Provider:          certify.Value{Value: "embedded", Source: "the harness"},
	}
}

type certKeys struct {
	vendor, attacker ed25519.PrivateKey
	vendorPub        string // file
}

func newCertKeys(t *testing.T) certKeys {
	t.Helper()
	var k certKeys
	for _, p := range []*ed25519.PrivateKey{&k.vendor, &k.attacker} {
		priv, _, err := certify.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if *p, err = certify.ParsePrivateKey(priv); err != nil {
			t.Fatal(err)
		}
	}
	k.vendorPub = filepath.Join(t.TempDir(), "vendor.pub")
	writePub(t, k.vendorPub, k.vendor)
	return k
}

func pemPublic(pub ed25519.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

func writePub(t *testing.T, path string, key ed25519.PrivateKey) {
	t.Helper()
	data, err := pemPublic(key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// certBundle writes a run dir for res as run writes it, bundles it with
// the vendor key and returns the bundle's files.
func certBundle(t *testing.T, res results.Results, key ed25519.PrivateKey) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if _, err := (reports.Set{Dir: dir}).Write(res); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, reports.RunLogName), []byte("the run's log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, certify.DefaultName)
	if _, err := engine.WriteBundle(path, dir, certFingerprint(), key, version); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files, err := certify.Unpack(f)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// pack writes files as a bundle. With resign set, the manifest is
// recomputed and signed with it (an attacker's re-signing); otherwise the
// manifest and signature are kept as they are.
func pack(t *testing.T, files map[string][]byte, resign ed25519.PrivateKey) string {
	t.Helper()
	out := map[string][]byte{}
	for n, d := range files {
		out[n] = d
	}
	if resign != nil {
		delete(out, certify.ManifestName)
		delete(out, certify.SignatureName)
		m, err := certify.ManifestOf(out, resign.Public().(ed25519.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		out[certify.ManifestName], out[certify.SignatureName] = m, certify.Sign(m, resign)
	}
	data, err := certify.Pack(out, certT0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bundle.tar.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rewrite replaces results.json (and, with reports, report.yaml and
// junit.xml made from it, as an attacker with the harness would).
func rewrite(t *testing.T, files map[string][]byte, res results.Results, reports bool) {
	t.Helper()
	names := []string{results.FileName}
	if reports {
		names = append(names, report.FileName, junit.FileName)
	}
	rewriteOnly(t, files, res, names...)
}

// rewriteOnly replaces the named files with those res gives.
func rewriteOnly(t *testing.T, files map[string][]byte, res results.Results, names ...string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := (reports.Set{Dir: dir}).Write(res); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = data
	}
}

func readBundleResults(t *testing.T, files map[string][]byte) results.Results {
	t.Helper()
	var res results.Results
	if err := json.Unmarshal(files[results.FileName], &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func setHarness(t *testing.T, files map[string][]byte, change func(*certify.Harness)) {
	t.Helper()
	var h certify.Harness
	if err := json.Unmarshal(files[certify.HarnessName], &h); err != nil {
		t.Fatal(err)
	}
	change(&h)
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	files[certify.HarnessName] = append(data, '\n')
}

// refused runs verify and wants exit 2 with one line containing want.
func refused(t *testing.T, path, want string, args ...string) {
	t.Helper()
	r := runCLI(t, append([]string{"verify", path}, args...)...)
	r.mustExit(t, 2)
	line := strings.TrimSpace(r.stderr)
	if strings.Count(line, "\n") != 0 || !strings.Contains(line, want) {
		t.Fatalf("want one line containing %q, got stderr:\n%s", want, r.stderr)
	}
	t.Logf("refused: %s", line)
}

func TestVerifyGoodBundleExitsZero(t *testing.T) {
	k := newCertKeys(t)
	path := pack(t, certBundle(t, certResults(""), k.vendor), nil)
	r := runCLI(t, "verify", path, "--key", k.vendorPub)
	r.mustExit(t, 0)
	for _, want := range []string{"signature: valid, by the given key " + certify.KeyID(k.vendor.Public().(ed25519.PublicKey)),
		"the contract digest matches", "cluster: Kubernetes v1.37.2", "verdict: conformant: conformance success"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// Without --key: valid, but it says the signature was not checked.
	r = runCLI(t, "verify", path)
	r.mustExit(t, 0)
	if !strings.Contains(r.stdout, "signature: NOT checked against a trusted key") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestVerifyNotConformantExitsOne(t *testing.T) {
	k := newCertKeys(t)
	path := pack(t, certBundle(t, certResults("MutatingBeforeValidating"), k.vendor), nil)
	r := runCLI(t, "verify", path, "--key", k.vendorPub)
	r.mustExit(t, 1)
	if !strings.Contains(r.stdout, "verdict: not conformant: conformance failure") || !strings.Contains(r.stderr, "valid but not conformant") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

func TestVerifyRefusesTamperedBundles(t *testing.T) {
	k := newCertKeys(t)
	good := certBundle(t, certResults(""), k.vendor)
	failing := certBundle(t, certResults("MutatingBeforeValidating"), k.vendor)
	clone := func(files map[string][]byte) map[string][]byte {
		out := map[string][]byte{}
		for n, d := range files {
			out[n] = bytes.Clone(d)
		}
		return out
	}

	t.Run("one byte of results.json changed", func(t *testing.T) {
		f := clone(good)
		i := bytes.Index(f[results.FileName], []byte(`"passed"`))
		f[results.FileName][i+1] = 'P'
		refused(t, pack(t, f, nil), "results.json does not match its sha256 in manifest.json", "--key", k.vendorPub)
	})

	// A failed case turned passed and every report made to match: the
	// attacker recomputes the digests and signs with their own key.
	flip := func(t *testing.T) map[string][]byte {
		f := clone(failing)
		res := readBundleResults(t, f)
		for i := range res.Specs {
			if res.Specs[i].State == results.Failed {
				res.Specs[i].State, res.Specs[i].Message, res.Specs[i].Location, res.Specs[i].Journal = results.Passed, "", "", nil
			}
		}
		res.Summarize(fields.Cover)
		rewrite(t, f, res, true)
		return f
	}
	t.Run("failed case turned passed, verdict rewritten, re-signed without the vendor key", func(t *testing.T) {
		refused(t, pack(t, flip(t), k.attacker), "manifest.sig does not verify with the given key", "--key", k.vendorPub)
	})
	t.Run("failed case turned passed, digests recomputed, signature kept", func(t *testing.T) {
		f := flip(t)
		sig := f[certify.SignatureName]
		delete(f, certify.ManifestName)
		delete(f, certify.SignatureName)
		m, err := certify.ManifestOf(f, k.vendor.Public().(ed25519.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		f[certify.ManifestName], f[certify.SignatureName] = m, sig
		// Even without --key the old signature no longer holds.
		refused(t, pack(t, f, nil), "manifest.sig does not verify even with the key manifest.json names")
	})
	flipOnly := func(t *testing.T, f map[string][]byte, names ...string) {
		res := readBundleResults(t, f)
		for i := range res.Specs {
			if res.Specs[i].State == results.Failed {
				res.Specs[i].State, res.Specs[i].Message, res.Specs[i].Location, res.Specs[i].Journal = results.Passed, "", "", nil
			}
		}
		res.Summarize(fields.Cover)
		rewriteOnly(t, f, res, names...)
	}
	t.Run("failed case turned passed without --key: junit.xml left alone gives it away", func(t *testing.T) {
		f := clone(failing)
		flipOnly(t, f, results.FileName, report.FileName)
		refused(t, pack(t, f, k.attacker), "junit.xml and results.json disagree on the state of case ordering/MutatingBeforeValidating")
	})
	t.Run("failed case turned passed without --key: report.yaml left alone gives it away", func(t *testing.T) {
		f := clone(failing)
		flipOnly(t, f, results.FileName, junit.FileName)
		refused(t, pack(t, f, k.attacker), "report.yaml says conformance failure but its cases give success")
	})
	t.Run("written verdict changed to success, cases left failed, without --key", func(t *testing.T) {
		f := clone(failing)
		flipOnly(t, f, report.FileName) // a report.yaml consistent in itself
		refused(t, pack(t, f, k.attacker), "report.yaml says conformance success but its cases give failure")
	})
	t.Run("written verdict field alone edited, without --key", func(t *testing.T) {
		f := clone(failing)
		f[report.FileName] = bytes.Replace(f[report.FileName], []byte("result: failure"), []byte("result: success"), 1)
		refused(t, pack(t, f, k.attacker), "report.yaml is not a valid report")
	})
	t.Run("failed case turned passed, only results.json and its summary changed, without --key", func(t *testing.T) {
		f := clone(failing)
		res := readBundleResults(t, f)
		for i := range res.Specs {
			if res.Specs[i].State == results.Failed {
				res.Specs[i].State = results.Passed
			}
		}
		res.Summarize(fields.Cover)
		rewrite(t, f, res, false)
		refused(t, pack(t, f, k.attacker), "is passed but carries the journal the harness attaches to failed cases")
	})
	t.Run("failed case turned passed, everything rewritten, without --key: only the signer's key tells", func(t *testing.T) {
		// A complete forgery is consistent: without the vendor's key
		// verify cannot refuse it. It says the signature was not checked
		// and names the attacker's key, not the vendor's.
		r := runCLI(t, "verify", pack(t, flip(t), k.attacker))
		r.mustExit(t, 0)
		attacker := certify.KeyID(k.attacker.Public().(ed25519.PublicKey))
		if !strings.Contains(r.stdout, "NOT checked against a trusted key (no --key); it holds with the key the bundle names, "+attacker) {
			t.Fatalf("stdout:\n%s", r.stdout)
		}
	})

	t.Run("a case removed, re-signed without the vendor key", func(t *testing.T) {
		f := clone(failing)
		res := readBundleResults(t, f)
		res.Specs = res.Specs[1:]
		res.Summarize(fields.Cover)
		rewrite(t, f, res, true)
		refused(t, pack(t, f, k.attacker), "manifest.sig does not verify with the given key", "--key", k.vendorPub)
	})
	t.Run("a case removed, without --key", func(t *testing.T) {
		f := clone(good)
		res := readBundleResults(t, f)
		removed := res.Specs[0]
		res.Specs = res.Specs[1:]
		res.Summarize(fields.Cover)
		rewrite(t, f, res, false)
		refused(t, pack(t, f, k.attacker), "lists case "+removed.Suite+"/"+removed.Name+", which results.json lacks")
	})
	t.Run("a case removed, reports and selection digest rewritten, without --key", func(t *testing.T) {
		f := clone(good)
		res := readBundleResults(t, f)
		removed := res.Specs[0]
		res.Specs = res.Specs[1:]
		res.Summarize(fields.Cover)
		rewrite(t, f, res, true)
		setHarness(t, f, func(h *certify.Harness) {
			text, selected := certify.SelectionText(res)
			h.SelectionDigest, h.Selected, h.Cases = certify.Digest([]byte(text)), selected, len(res.Specs)
		})
		refused(t, pack(t, f, k.attacker), "lacks spec "+removed.Suite+"/"+removed.ShortName+", which this harness lists in every run")
	})
	t.Run("a case removed, selection digest left, without --key", func(t *testing.T) {
		f := clone(good)
		res := readBundleResults(t, f)
		res.Specs = res.Specs[1:]
		res.Summarize(fields.Cover)
		rewrite(t, f, res, true)
		refused(t, pack(t, f, k.attacker), "harness.json: the selection digest does not match the cases")
	})

	t.Run("signed with another key", func(t *testing.T) {
		refused(t, pack(t, certBundle(t, certResults(""), k.attacker), nil), "manifest.sig does not verify with the given key", "--key", k.vendorPub)
	})

	t.Run("contract digest of another harness version under this version's name", func(t *testing.T) {
		f := clone(good)
		setHarness(t, f, func(h *certify.Harness) { h.ContractDigest = certify.Digest([]byte("another inventory")) })
		// Signed by the vendor: a vendor's own modified harness.
		refused(t, pack(t, f, k.vendor), "is not this harness's", "--key", k.vendorPub)
	})
	t.Run("bundle of another harness version: its contract digest cannot be checked here", func(t *testing.T) {
		f := clone(good)
		res := readBundleResults(t, f)
		res.HarnessVersion = "v9.9.9"
		rewrite(t, f, res, true)
		setHarness(t, f, func(h *certify.Harness) {
			h.Version, h.Commit, h.ContractDigest = "v9.9.9", "", certify.Digest([]byte("another inventory"))
		})
		r := runCLI(t, "verify", pack(t, f, k.vendor), "--key", k.vendorPub)
		r.mustExit(t, 0)
		if !strings.Contains(r.stdout, "harness: made by v9.9.9, this binary is "+version) || !strings.Contains(r.stdout, "cannot be checked by this binary") {
			t.Fatalf("stdout:\n%s", r.stdout)
		}
	})

	setServer := func(f map[string][]byte) {
		f[certify.FingerprintName] = bytes.Replace(f[certify.FingerprintName], []byte(`"v1.37.2"`), []byte(`"v1.38.0"`), 1)
	}
	t.Run("a fingerprint value edited", func(t *testing.T) {
		f := clone(good)
		setServer(f)
		refused(t, pack(t, f, nil), "fingerprint.json does not match its sha256 in manifest.json")
	})
	t.Run("a fingerprint value edited, re-signed without the vendor key", func(t *testing.T) {
		f := clone(good)
		setServer(f)
		refused(t, pack(t, f, k.attacker), "manifest.sig does not verify with the given key", "--key", k.vendorPub)
	})
	t.Run("a fingerprint value edited, without --key", func(t *testing.T) {
		f := clone(good)
		setServer(f)
		refused(t, pack(t, f, k.attacker), "fingerprint.json: server version v1.38.0 is not the Kubernetes version results.json records")
	})

	t.Run("a file added", func(t *testing.T) {
		f := clone(good)
		f["extra.txt"] = []byte("x")
		refused(t, pack(t, f, nil), "extra.txt is in the bundle but not in manifest.json", "--key", k.vendorPub)
	})
	t.Run("not a bundle", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "x.tar.gz")
		if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
		refused(t, path, "is not a certification bundle")
	})
}

func TestCertifyContractDigestIsListContractJSON(t *testing.T) {
	r := runCLI(t, "list", "--contract", "-o", "json")
	r.mustExit(t, 0)
	want, err := certify.ContractJSON()
	if err != nil {
		t.Fatal(err)
	}
	if r.stdout != string(want) {
		t.Fatalf("list --contract -o json is not what the contract digest is taken of")
	}
}

func TestCertifyNeedsASigningKeyBeforeAnyCluster(t *testing.T) {
	r := runCLI(t, "certify", "--suite", "webhooks")
	r.mustExit(t, 2)
	if !strings.Contains(r.stderr, "--sign-key is required") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.key")
	if err := os.WriteFile(bad, []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "certify", "--sign-key", bad)
	r.mustExit(t, 2)
	if !strings.Contains(r.stderr, "not a PKCS#8 PEM private key") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
}

func TestCertifyKeygenAndOpenSSLKeysSign(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "vendor.key")
	r := runCLI(t, "certify", "keygen", "--out", key)
	r.mustExit(t, 0)
	priv, err := certify.ReadPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := certify.ReadPublicKey(key + ".pub")
	if err != nil || !pub.Equal(priv.Public()) {
		t.Fatalf("public key %v does not match: %v", pub, err)
	}
	if r := runCLI(t, "certify", "keygen", "--out", key); r.code != 2 {
		t.Fatalf("keygen overwrote a key: exit %d", r.code)
	}
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl")
	}
	okey, opub := filepath.Join(dir, "o.key"), filepath.Join(dir, "o.pub")
	for _, args := range [][]string{{"genpkey", "-algorithm", "ed25519", "-out", okey}, {"pkey", "-in", okey, "-pubout", "-out", opub}} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	op, err := certify.ReadPrivateKey(okey)
	if err != nil {
		t.Fatal(err)
	}
	path := pack(t, certBundle(t, certResults(""), op), nil)
	runCLI(t, "verify", path, "--key", opub).mustExit(t, 0)
}
