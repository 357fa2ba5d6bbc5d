package cli

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
)

// TestPrintedRightsSufficeOnEmbeddedCluster runs the full selection
// through the kubeconfig provider as a user (a client certificate the
// cluster signed) bound to exactly the rights `run --plan` prints, on an
// embedded cluster: the preflight passes, no case fails, and the only
// cases not supported for lack of a right are those of an optional
// identity, each of which makes at least one case not supported. A right a
// spec uses but the list lacks fails its cases with a 403 (the list once
// lacked validatingadmissionpolicies/status).
func TestPrintedRightsSufficeOnEmbeddedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("boots an embedded cluster")
	}
	c, err := startTestCluster(t)
	if err != nil {
		t.Fatal(err)
	}
	user := userKubeconfig(t, c.config, "admission-conformance:printed-rights", access.Needed(false, spec.All()))
	dir := t.TempDir()
	started := time.Now()
	r := runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", user, "--webhook-host", "127.0.0.1", "--report-dir", dir)
	t.Logf("run as a user holding exactly the printed rights: %.0fs, exit %d\n%s", time.Since(started).Seconds(), r.code, tail(r.stdout, 3))
	if r.code != 0 {
		t.Errorf("exit %d: %s\n%s", r.code, r.stderr, tail(r.stdout, 40))
	}
	res := readResults(t, dir)
	if res.Summary.Passed == 0 {
		t.Fatalf("no case passed: %+v", res.Summary)
	}
	_, optional := access.ForSpecs(spec.All())
	lacked := map[string]int{}
	for _, s := range res.Specs {
		if s.State == results.Failed {
			t.Errorf("%s/%s: %s failed: %s", s.Suite, s.ShortName, s.Name, s.Message)
		}
		if s.State != results.NotSupported || !strings.Contains(s.Message, "may not") {
			continue
		}
		i := slices.IndexFunc(optional, func(o access.Optional) bool {
			return slices.Contains(o.Specs, s.ShortName) && strings.Contains(s.Message, "impersonates "+o.Identity.String())
		})
		if i < 0 {
			t.Errorf("%s/%s: %s not supported for lack of a printed right: %s", s.Suite, s.ShortName, s.Name, s.Message)
			continue
		}
		lacked[optional[i].Identity.String()]++
	}
	for _, o := range optional {
		if lacked[o.Identity.String()] == 0 && ranAny(res, o.Specs) {
			t.Errorf("no case of %s was not supported for lack of the right to impersonate %s, which the user was not granted", strings.Join(o.Specs, ", "), o.Identity)
		}
	}
	t.Logf("%+v; not supported for an optional identity: %v", res.Summary, lacked)
}

// ranAny: some case of specs ran, or was refused a right, in res (not every
// one was not supported for want of a feature, before any right mattered).
func ranAny(res results.Results, specs []string) bool {
	return slices.ContainsFunc(res.Specs, func(s results.Spec) bool {
		return slices.Contains(specs, s.ShortName) && !(s.State == results.NotSupported && strings.Contains(s.Message, "needs features"))
	})
}
