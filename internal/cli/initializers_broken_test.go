package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// The specs of the seed's initializer contract run against the project's
// reference implementation. Configured wrongly on purpose, it must make the
// ordering and timeout specs fail, each saying what went wrong; configured
// rightly, the same specs pass.

// initializerSpecs are the specs the broken implementations must fail,
// each fault its own and none of the others'.
var initializerSpecs = []string{"InitializerOrderAcrossConfigurations", "InitializerIgnoreTimeout", "InitializerFailTimeout", "InitializerReadRepair"}

func runInitializers(t *testing.T, report string, extra ...string) cliResult {
	t.Helper()
	// No nodes: these specs hold pods, they never place them.
	args := []string{"run", "--suite", "initializers", "--report-dir", report, "--nodes", "0"}
	for _, name := range initializerSpecs {
		args = append(args, "--focus", name)
	}
	return runCLI(t, append(args, extra...)...)
}

func TestInitializerSpecsPassAgainstTheReferenceImplementation(t *testing.T) {
	report := t.TempDir()
	r := runInitializers(t, report)
	r.mustExit(t, 0)
	res := readResults(t, report)
	if !slices.Contains(res.Features.Declared, "ReferenceInitializers") {
		t.Errorf("the installed reference implementation is not declared: %+v", res.Features)
	}
	expectStates(t, res, initializerSpecs, results.Passed, "")
}

// Configurations merged in reverse name order: the pod's gates come in the
// wrong order.
func TestInitializerOrderSpecFailsWhenOrderIsReversed(t *testing.T) {
	report := t.TempDir()
	r := runInitializers(t, report, "--reference-initializers-fault=reverse-order")
	r.mustExit(t, 1)
	failed := failedSpecs(t, report, "InitializerOrderAcrossConfigurations")
	if len(failed) != 1 || !strings.Contains(failed[0].Message, "gates of the created pod") {
		t.Fatalf("want the order spec to fail on the gates' order, got %+v", failed)
	}
	// Timeouts do not depend on the order: the broken order alone is caught.
	expectStates(t, readResults(t, report), []string{"InitializerIgnoreTimeout", "InitializerFailTimeout", "InitializerReadRepair"}, results.Passed, "")
}

// No timeouts: a stuck Ignore initializer is never removed and a stuck Fail
// initializer never fails its pod.
func TestInitializerTimeoutSpecsFailWithoutTimeouts(t *testing.T) {
	report := t.TempDir()
	r := runInitializers(t, report, "--reference-initializers-fault=no-timeouts", "--bound", "objectState=3s")
	r.mustExit(t, 1)
	for name, want := range map[string]struct {
		cases int
		says  string
	}{
		"InitializerIgnoreTimeout": {2, "the timed-out Ignore initializer must be removed"},
		"InitializerFailTimeout":   {1, "the pod must fail when its Fail initializer times out"},
	} {
		failed := failedSpecs(t, report, name)
		if len(failed) != want.cases {
			t.Errorf("%s: %d failed cases, want %d: %+v", name, len(failed), want.cases, failed)
		}
		for _, f := range failed {
			if !strings.Contains(f.Message, want.says) {
				t.Errorf("%s: failure does not say %q: %s", name, want.says, f.Message)
			}
		}
	}
	// Read repair is the fallback for lost timers, not one of them.
	expectStates(t, readResults(t, report), []string{"InitializerOrderAcrossConfigurations", "InitializerReadRepair"}, results.Passed, "")
}

// No read repair: a pod past the global timeout keeps its head initializer
// until the initializer's own, longer timeout; the per-initializer timeouts
// still work.
func TestReadRepairSpecFailsWithoutReadRepair(t *testing.T) {
	report := t.TempDir()
	r := runCLI(t, "run", "--suite", "initializers", "--report-dir", report, "--nodes", "0",
		"--focus", "InitializerReadRepair", "--focus", "InitializerIgnoreTimeout",
		"--reference-initializers-fault=no-read-repair", "--bound", "objectState=3s")
	r.mustExit(t, 1)
	failed := failedSpecs(t, report, "InitializerReadRepair")
	if len(failed) != 1 || !strings.Contains(failed[0].Message, "read repair must remove the head initializer") {
		t.Fatalf("want the read repair spec to fail on the kept initializer, got %+v", failed)
	}
	expectStates(t, readResults(t, report), []string{"InitializerIgnoreTimeout"}, results.Passed, "")
}

func TestUnknownInitializersFaultIsBadInput(t *testing.T) {
	r := runCLI(t, "run", "--reference-initializers-fault", "sideways")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown reference initializers fault "sideways"`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// A poller that reads the configurations every 3 s, not every 1 s: a
// change reaches new pods late, and the propagation spec says so.
func TestInitializerPropagationSpecFailsOnASlowPoller(t *testing.T) {
	report := t.TempDir()
	r := runCLI(t, "run", "--suite", "initializers", "--report-dir", report, "--nodes", "0",
		"--focus", "InitializerConfigurationPropagation", "--reference-initializers-fault=slow-poll")
	r.mustExit(t, 1)
	failed := failedSpecs(t, report, "InitializerConfigurationPropagation")
	if len(failed) != 1 || !strings.Contains(failed[0].Message, "applied to new pods after") {
		t.Fatalf("want the propagation spec to fail on a late change, got %+v", failed)
	}
}
