package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
)

// The ordering suite's important specs must fail on control planes whose
// admission order is broken. kube-apiserver's chain order is compiled in
// (AllOrderedPlugins: every mutating plugin, then every validating one, and
// --enable/--disable-admission-plugins never reorder it), so the only broken
// orders a real kube-apiserver can be configured into are chains with a
// mechanism missing from the place the specs look for it. Each test below
// starts one such chain, runs only the specs it should break, and checks that
// they fail for the reason the broken chain gives them.

// orderingSpecs are the ordering suite's registered specs.
func orderingSpecs() []spec.Spec {
	var out []spec.Spec
	for _, s := range spec.All() {
		if s.Suite == "ordering" {
			out = append(out, s)
		}
	}
	return out
}

// casesOf returns the result of every case of the spec called shortName.
func casesOf(t *testing.T, res results.Results, shortName string) []results.Spec {
	t.Helper()
	var out []results.Spec
	for _, s := range res.Specs {
		if s.ShortName == shortName {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no result for %s", shortName)
	}
	return out
}

// The control for every broken plane below: on an unbroken embedded control
// plane every ordering spec passes, extended ones included (the embedded
// cluster declares their features).
func TestOrderingSuitePassesOnTheEmbeddedCluster(t *testing.T) {
	report := t.TempDir()
	r := runCLI(t, "run", "--suite", "ordering", "--report-dir", report)
	r.mustExit(t, 0)
	res := readResults(t, report)
	for _, s := range orderingSpecs() {
		for _, c := range casesOf(t, res, s.ShortName) {
			if c.State != results.Passed || c.Seed == "" || c.Profile != string(s.Profile) {
				t.Errorf("%s: %+v", c.Name, c)
			}
		}
	}
	if res.Cluster.Provider != embedded.Name || !strings.HasPrefix(res.Cluster.KubernetesVersion, "v1.") {
		t.Errorf("cluster %+v", res.Cluster)
	}
	if !regexp.MustCompile(`\[1/\d+\] PASSED`).MatchString(r.stdout) {
		t.Errorf("no progress line in:\n%s", r.stdout)
	}
	if left := leftovers(t, r.tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// runBroken runs the named specs on an embedded control plane started with
// the given kube-apiserver flag, expects the run to fail, and returns the
// results.
func runBroken(t *testing.T, apiserverArg string, extra []string, shortNames ...string) results.Results {
	t.Helper()
	report := t.TempDir()
	filter := make([]string, len(shortNames))
	for i, n := range shortNames {
		filter[i] = "spec:" + n
	}
	args := append([]string{"run", "--suite", "ordering", "--report-dir", report,
		"--apiserver-arg=" + apiserverArg, "--label-filter", strings.Join(filter, " || ")}, extra...)
	r := runCLI(t, args...)
	r.mustExit(t, 1)
	return readResults(t, report)
}

// expectFailed checks that every case of shortName whose name contains
// caseName failed with a message containing each of want.
func expectFailed(t *testing.T, res results.Results, shortName, caseName string, want ...string) {
	t.Helper()
	matched := 0
	for _, c := range casesOf(t, res, shortName) {
		if !strings.Contains(c.Name, caseName) {
			continue
		}
		matched++
		if c.State != results.Failed {
			t.Errorf("%s: state %s, want failed", c.Name, c.State)
			continue
		}
		for _, w := range want {
			if !strings.Contains(c.Message, w) {
				t.Errorf("%s: message does not say %q:\n%s", c.Name, w, c.Message)
			}
		}
	}
	if matched == 0 {
		t.Errorf("no case of %s is named like %q", shortName, caseName)
	}
}

// expectPassed checks that every case of shortName passed: a control that the
// broken plane breaks only what depends on the missing mechanism.
func expectPassed(t *testing.T, res results.Results, shortName string) {
	t.Helper()
	for _, c := range casesOf(t, res, shortName) {
		if c.State != results.Passed {
			t.Errorf("%s: state %s, want passed: %s", c.Name, c.State, c.Message)
		}
	}
}

// Without the MutatingAdmissionWebhook plugin, no mutating webhook runs
// before (or after) validation: the chain mutates nothing. The validating
// configurations are still enforced, but the mutating ones never are, which
// is how specs 1 and 2 fail: waiting (webhookReady, shortened here) for their
// mutating configuration, registered after the validating ones, to be
// enforced. That is the honest consequence of this plane: a harness cannot
// tell "not yet" from "never" except by a bound.
func TestOrderingSpecsFailWithoutTheMutatingWebhookPlugin(t *testing.T) {
	res := runBroken(t, "--disable-admission-plugins=MutatingAdmissionWebhook", []string{"--bound", "webhookReady=2s"},
		"MutatingBeforeValidating", "ValidatorsSeeFinalObject", "ValidatingWebhooksInParallel")
	expectFailed(t, res, "MutatingBeforeValidating", "", "the mutating webhooks must be called at all", "-mutate-a", "not enforced")
	expectFailed(t, res, "ValidatorsSeeFinalObject", "", "the mutating webhooks must be called at all", "-mutate", "not enforced")
	expectPassed(t, res, "ValidatingWebhooksInParallel") // validating webhooks alone still work
}

// Without the ResourceQuota plugin, no quota check follows the mutating
// webhooks. For the spec that is the chain it must catch: a claim the webhook
// raised above the quota is admitted, exactly what a quota judging the
// submitted value (a quota before the webhooks) would do. The case fails on
// its contract assertion; set-up (the quota's status comes from the quota
// controller, not the plugin) still succeeds.
func TestQuotaSpecFailsWithoutTheResourceQuotaPlugin(t *testing.T) {
	res := runBroken(t, "--disable-admission-plugins=ResourceQuota", nil, "ResourceQuotaJudgesWebhookMutations", "LimitRangerAroundWebhooks")
	expectFailed(t, res, "ResourceQuotaJudgesWebhookMutations", "rejects a claim the webhook raised above the quota",
		"the ResourceQuota must judge the written value and reject it")
	expectPassed(t, res, "LimitRangerAroundWebhooks") // the failure is the quota's alone
}

// Without LimitRanger, nothing defaults the pod before the validating
// webhooks see it, and nothing enforces the maximum on the limit the mutating
// webhook wrote: both cases fail on their contract assertions, as they would
// if LimitRanger's defaults came after the validating webhooks or its
// validation before the mutating ones.
func TestLimitRangerSpecFailsWithoutLimitRanger(t *testing.T) {
	res := runBroken(t, "--disable-admission-plugins=LimitRanger", nil, "LimitRangerAroundWebhooks", "ResourceQuotaJudgesWebhookMutations")
	for _, phase := range []string{"mutating", "validating"} {
		expectFailed(t, res, "LimitRangerAroundWebhooks", "applies its defaults before "+phase+" webhooks",
			"the "+phase+" webhook must see LimitRanger's default cpu request")
	}
	expectFailed(t, res, "LimitRangerAroundWebhooks", "enforces its maximum", "LimitRanger's validation must judge the written value")
	expectPassed(t, res, "ResourceQuotaJudgesWebhookMutations") // the failure is LimitRanger's alone
}
