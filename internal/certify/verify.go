package certify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
)

// Verdict codes, as verify exits.
const (
	Conformant    = 0
	NotConformant = 1
	Invalid       = 2
)

// Options are what verification trusts besides the bundle.
type Options struct {
	// PublicKey is the vendor's key; nil: the signature is checked only
	// against the key the manifest names, which proves nothing about who
	// signed.
	PublicKey ed25519.PublicKey
	// This is this harness (ContractDigest set): a bundle naming the same
	// harness must carry its contract digest.
	This Harness
	// Specs are this harness's registered specs ("suite/ShortName"): a
	// bundle of this harness lists every one (selected or not).
	Specs []string
}

// Outcome is what Verify found.
type Outcome struct {
	Code int
	// Problem is one line naming what is wrong (Code Invalid).
	Problem string
	// Notes say what was and was not checked.
	Notes       []string
	Report      report.ConformanceReport // re-derived from the cases
	Harness     Harness
	Fingerprint Fingerprint
	Results     results.Results
	KeyID       string // the key the signature holds with
}

func invalid(o Outcome, format string, args ...any) Outcome {
	o.Code = Invalid
	o.Problem = fmt.Sprintf(format, args...)
	return o
}

// Verify checks a bundle's files (from Unpack): every digest, the
// signature, the harness and the consistency of the reports with the
// cases, and re-derives the verdict from the cases.
func Verify(files map[string][]byte, opts Options) (o Outcome) {
	manifestData, ok := files[ManifestName]
	if !ok {
		return invalid(o, "%s is missing", ManifestName)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(manifestData))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || m.APIVersion != APIVersion || m.Kind != "CertificationManifest" {
		return invalid(o, "%s is not a certification manifest", ManifestName)
	}
	// Every file listed once, present, with its digest; nothing unlisted.
	listed := map[string]bool{}
	for _, f := range m.Files {
		if listed[f.Name] {
			return invalid(o, "%s lists %s twice", ManifestName, f.Name)
		}
		listed[f.Name] = true
		data, ok := files[f.Name]
		if !ok {
			return invalid(o, "%s is listed in %s but missing from the bundle", f.Name, ManifestName)
		}
		if Digest(data) != f.SHA256 || int64(len(data)) != f.Size {
			return invalid(o, "%s does not match its sha256 in %s: the file was changed", f.Name, ManifestName)
		}
	}
	for name := range files {
		if name != ManifestName && name != SignatureName && !listed[name] {
			return invalid(o, "%s is in the bundle but not in %s", name, ManifestName)
		}
	}
	for _, name := range Required {
		if !listed[name] {
			return invalid(o, "%s is missing from the bundle", name)
		}
	}
	// The signature.
	sigData, ok := files[SignatureName]
	if !ok {
		return invalid(o, "%s is missing: the bundle is not signed", SignatureName)
	}
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(sigData)))
	if err != nil || len(sig) != ed25519.SignatureSize {
		return invalid(o, "%s is not a base64 Ed25519 signature", SignatureName)
	}
	if opts.PublicKey != nil {
		if !ed25519.Verify(opts.PublicKey, manifestData, sig) {
			return invalid(o, "%s does not verify with the given key %s: signed with another key, or %s was changed", SignatureName, KeyID(opts.PublicKey), ManifestName)
		}
		o.KeyID = KeyID(opts.PublicKey)
		o.Notes = append(o.Notes, "signature: valid, by the given key "+o.KeyID)
	} else {
		named, err := base64.StdEncoding.DecodeString(m.PublicKey)
		if err != nil || len(named) != ed25519.PublicKeySize {
			return invalid(o, "%s names no Ed25519 public key", ManifestName)
		}
		if !ed25519.Verify(named, manifestData, sig) {
			return invalid(o, "%s does not verify even with the key %s names: %s was changed", SignatureName, ManifestName, ManifestName)
		}
		o.KeyID = KeyID(named)
		o.Notes = append(o.Notes, "signature: NOT checked against a trusted key (no --key); it holds with the key the bundle names, "+o.KeyID+
			", which anyone can replace: compare it with the vendor's published key")
	}
	// The files themselves.
	res, err := readResults(files[results.FileName])
	if err != nil {
		return invalid(o, "%s is unreadable: %v", results.FileName, err)
	}
	o.Results = res
	if err := strictJSON(files[HarnessName], &o.Harness); err != nil || o.Harness.Kind != "Harness" {
		return invalid(o, "%s is unreadable: %v", HarnessName, err)
	}
	if err := strictJSON(files[FingerprintName], &o.Fingerprint); err != nil || o.Fingerprint.Kind != "Fingerprint" {
		return invalid(o, "%s is unreadable: %v", FingerprintName, err)
	}
	written, err := report.Unmarshal(files[report.FileName])
	if err != nil {
		return invalid(o, "%s is not a valid report: %v", report.FileName, oneLine(err.Error()))
	}
	// The cases agree with each other and with every report made of them.
	recount := res
	recount.Summarize(fields.Cover)
	if recount.Summary != res.Summary {
		return invalid(o, "%s: its summary %s does not match its cases, which give %s", results.FileName, summaryText(res.Summary), summaryText(recount.Summary))
	}
	for _, s := range res.Specs {
		if s.State == results.Passed && s.Journal != nil {
			return invalid(o, "%s: case %s/%s is passed but carries the journal the harness attaches to failed cases", results.FileName, s.Suite, s.Name)
		}
	}
	if problem := checkRepetitions(res); problem != "" {
		return invalid(o, "%s: %s", results.FileName, problem)
	}
	if problem := checkJUnit(files[junit.FileName], res); problem != "" {
		return invalid(o, "%s", problem)
	}
	text, selected := SelectionText(res)
	if Digest([]byte(text)) != o.Harness.SelectionDigest || selected != o.Harness.Selected || len(res.Specs) != o.Harness.Cases {
		return invalid(o, "%s: the selection digest does not match the cases of %s (%d cases, %d selected): a case was added, removed or renamed",
			HarnessName, results.FileName, len(res.Specs), selected)
	}
	derived := report.Build(res, written.Implementation)
	o.Report = derived
	if written.Result != derived.Result {
		return invalid(o, "%s says conformance %s but its cases give %s", report.FileName, written.Result, derived.Result)
	}
	for i, p := range derived.Profiles {
		if i >= len(written.Profiles) || written.Profiles[i].Name != p.Name || written.Profiles[i].Result != p.Result || written.Profiles[i].Statistics != p.Statistics {
			return invalid(o, "%s: profile %s does not follow from the cases (they give %s)", report.FileName, p.Name, p.Result)
		}
	}
	if want, err := report.Marshal(derived); err != nil || !bytes.Equal(want, files[report.FileName]) {
		return invalid(o, "%s is not the report its cases give (re-derived from %s, it differs)", report.FileName, results.FileName)
	}
	// The harness.
	if res.HarnessVersion != o.Harness.Version {
		return invalid(o, "%s names harness %s but %s names %s", results.FileName, res.HarnessVersion, HarnessName, o.Harness.Version)
	}
	if SameHarness(o.Harness, opts.This) {
		if o.Harness.ContractDigest != opts.This.ContractDigest {
			return invalid(o, "%s: contract digest %s is not this harness's %s although it names the same version %s", HarnessName, short(o.Harness.ContractDigest), short(opts.This.ContractDigest), o.Harness.Version)
		}
		present := map[string]bool{}
		for _, s := range res.Specs {
			present[s.Suite+"/"+s.ShortName] = true
		}
		for _, s := range opts.Specs {
			if !present[s] {
				return invalid(o, "%s lacks spec %s, which this harness lists in every run: a case was removed", results.FileName, s)
			}
		}
		o.Notes = append(o.Notes, "harness: "+harnessName(o.Harness)+", the contract digest matches this binary's inventory")
	} else {
		o.Notes = append(o.Notes, fmt.Sprintf("harness: made by %s, this binary is %s: the contract digest %s cannot be checked by this binary",
			harnessName(o.Harness), harnessName(opts.This), short(o.Harness.ContractDigest)))
	}
	// The fingerprint agrees with what the run recorded.
	if v, ok := o.Fingerprint.ServerVersion.Value.(string); ok && v != "unknown" && !strings.HasPrefix(v, "v0.0.0") && res.Cluster.KubernetesVersion != "" && v != res.Cluster.KubernetesVersion {
		return invalid(o, "%s: server version %s is not the Kubernetes version %s records (%s)", FingerprintName, v, results.FileName, res.Cluster.KubernetesVersion)
	}
	if v, ok := o.Fingerprint.KubernetesVersion.Value.(string); ok && v != "unknown" && res.Cluster.KubernetesVersion != "" && v != res.Cluster.KubernetesVersion {
		return invalid(o, "%s: Kubernetes version %s is not the one %s records (%s)", FingerprintName, v, results.FileName, res.Cluster.KubernetesVersion)
	}
	if v, ok := o.Fingerprint.Provider.Value.(string); ok && res.Cluster.Provider != "" && v != res.Cluster.Provider {
		return invalid(o, "%s: provider %s is not the provider %s records (%s)", FingerprintName, v, results.FileName, res.Cluster.Provider)
	}
	if derived.Result == report.Success {
		o.Code = Conformant
	} else {
		o.Code = NotConformant
	}
	return o
}

func readResults(data []byte) (results.Results, error) {
	var r results.Results
	if err := strictJSON(data, &r); err != nil {
		return r, err
	}
	if !results.KnownAPIVersion(r.APIVersion) || r.Kind != results.Kind {
		return r, fmt.Errorf("it is %s/%s", r.APIVersion, r.Kind)
	}
	return r, nil
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s", oneLine(err.Error()))
	}
	return nil
}

// checkJUnit compares junit.xml with the one the cases give, naming the
// first case they disagree on.
func checkJUnit(data []byte, res results.Results) string {
	want := junit.FromResults(res)
	wantData, err := xml.MarshalIndent(want, "", "  ")
	if err == nil && bytes.Equal(append([]byte(xml.Header), append(wantData, '\n')...), data) {
		return ""
	}
	var got junit.TestSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		return junit.FileName + " is unreadable: " + oneLine(err.Error())
	}
	type state struct{ failed, skipped bool }
	cases := func(ts junit.TestSuites) (map[string]state, []string) {
		out := map[string]state{}
		var order []string
		for _, s := range ts.Suites {
			for _, c := range s.Cases {
				key := s.Name + "/" + c.Name
				out[key] = state{c.Failure != nil, c.Skipped != nil}
				order = append(order, key)
			}
		}
		return out, order
	}
	wantCases, wantOrder := cases(want)
	gotCases, gotOrder := cases(got)
	for _, k := range gotOrder {
		if _, ok := wantCases[k]; !ok {
			return fmt.Sprintf("%s lists case %s, which %s lacks: a case was removed or renamed", junit.FileName, k, results.FileName)
		}
	}
	for _, k := range wantOrder {
		g, ok := gotCases[k]
		if !ok {
			return fmt.Sprintf("%s lacks case %s of %s", junit.FileName, k, results.FileName)
		}
		if g != wantCases[k] {
			return fmt.Sprintf("%s and %s disagree on the state of case %s", junit.FileName, results.FileName, k)
		}
	}
	return fmt.Sprintf("%s is not the one the cases of %s give", junit.FileName, results.FileName)
}

func summaryText(s results.Summary) string {
	text := fmt.Sprintf("(%d total, %d passed, %d failed, %d skipped, %d not supported", s.Total, s.Passed, s.Failed, s.Skipped, s.NotSupported)
	if s.Flaky > 0 {
		text += fmt.Sprintf(", %d flaky", s.Flaky)
	}
	return text + ")"
}

func harnessName(h Harness) string {
	if h.Commit == "" {
		return h.Version
	}
	return h.Version + " (commit " + h.Commit + ")"
}

func short(digest string) string {
	if len(digest) > 19 {
		return digest[:19]
	}
	return digest
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Summary is the verdict line: the re-derived result per profile.
func (o Outcome) Summary() string {
	parts := make([]string, len(o.Report.Profiles))
	for i, p := range o.Report.Profiles {
		s := p.Statistics
		parts[i] = fmt.Sprintf("%s %s %d/%d passed", p.Name, p.Result, s.Passed, s.Total)
		if s.Flaky > 0 {
			parts[i] += fmt.Sprintf(", %d flaky", s.Flaky)
		}
	}
	verdict := "conformant"
	if o.Code != Conformant {
		verdict = "not conformant"
	}
	return fmt.Sprintf("verdict: %s: conformance %s (%s), re-derived from %d cases", verdict, o.Report.Result, strings.Join(parts, ", "), len(o.Results.Specs))
}

// FingerprintText is the fingerprint in a few lines.
func (o Outcome) FingerprintText() []string {
	fp := o.Fingerprint
	list := func(v Value) string {
		switch x := v.Value.(type) {
		case []any:
			names := make([]string, len(x))
			for i, n := range x {
				names[i] = fmt.Sprint(n)
			}
			slices.Sort(names)
			return fmt.Sprintf("%d: %s", len(names), strings.Join(names, ","))
		case map[string]any:
			if len(x) == 0 {
				return "none"
			}
			var kv []string
			for k, n := range x {
				kv = append(kv, k+"="+fmt.Sprint(n))
			}
			slices.Sort(kv)
			return fmt.Sprintf("%d: %s", len(kv), strings.Join(kv, ","))
		}
		return fmt.Sprint(v.Value)
	}
	gates := list(fp.FeatureGates)
	if g, ok := fp.FeatureGates.Value.([]any); ok {
		gates = fmt.Sprintf("%d enabled", len(g))
	}
	return []string{
		fmt.Sprintf("cluster: Kubernetes %v (apiserver says %v, commit %v), provider %v, %v apiserver replica(s), kubelets %s", fp.KubernetesVersion.Value, fp.ServerVersion.Value, fp.GitCommit.Value,
			fp.Provider.Value, fp.APIServerReplicas.Value, list(fp.KubeletVersions)),
		fmt.Sprintf("cluster: feature gates %s; admission plugins seen %s", gates, list(fp.AdmissionPlugins)),
	}
}
