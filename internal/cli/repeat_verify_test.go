package cli

import (
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// certRepeatedResults is certResults run with --repeat 4: every case
// passed four times, but flaky (a ShortName) passed only in repetitions 1
// and 3.
func certRepeatedResults(flaky string) results.Results {
	res := certResults("")
	res.APIVersion, res.Repeat = results.APIVersionRepeated, &results.Repeat{Count: 4}
	for i, s := range res.Specs {
		reps := make([]results.Spec, 4)
		for k := range reps {
			reps[k] = s
			if s.ShortName == flaky && k%2 == 1 {
				reps[k].State, reps[k].Message, reps[k].Location = results.Failed, "webhook answered 500", "suites/x/x.go:1"
			}
		}
		res.Specs[i] = results.Aggregate(reps)
	}
	res.Summarize(fields.Cover)
	return res
}

// verify re-derives the verdict from the cases' repetitions: a bundle with
// a flaky case is valid and not conformant (exit 1); one whose flaky case
// was written passed, with the verdict and every report made to match,
// is refused as tampered (exit 2), whether its repetitions were kept or
// removed.
func TestVerifyTreatsFlakyCasesAsNotPassed(t *testing.T) {
	k := newCertKeys(t)
	flaky := certRepeatedResults("MutatingBeforeValidating")
	files := certBundle(t, flaky, k.vendor)
	r := runCLI(t, "verify", pack(t, files, nil), "--key", k.vendorPub)
	r.mustExit(t, 1)
	if !strings.Contains(r.stdout, "verdict: not conformant: conformance failure (core failure") || !strings.Contains(r.stdout, "1 flaky") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}

	clean := certBundle(t, certRepeatedResults(""), k.vendor)
	runCLI(t, "verify", pack(t, clean, nil), "--key", k.vendorPub).mustExit(t, 0)

	forge := func(t *testing.T, dropRepetitions bool) map[string][]byte {
		f := map[string][]byte{}
		for n, d := range files {
			f[n] = d
		}
		res := readBundleResults(t, f)
		for i, s := range res.Specs {
			if s.State == results.Flaky {
				res.Specs[i].State, res.Specs[i].Message, res.Specs[i].Location = results.Passed, "", ""
				if dropRepetitions {
					res.Specs[i].Repetitions, res.Specs[i].PassRate = nil, nil
				}
			}
		}
		res.Summarize(fields.Cover)
		rewrite(t, f, res, true)
		return f
	}
	t.Run("flaky case written passed, reports rewritten, re-signed", func(t *testing.T) {
		refused(t, pack(t, forge(t, false), k.attacker),
			"results.json: case ordering/MutatingBeforeValidating does what it promises is written passed but its repetitions give flaky: passed 2 of 4 (50%")
	})
	t.Run("flaky case written passed, its repetitions removed, re-signed", func(t *testing.T) {
		refused(t, pack(t, forge(t, true), k.attacker), "ran but lists none of the 4 repetitions the run records")
	})
}

// A flaky case is never a pass in report.yaml and junit.xml either.
func TestFlakyCaseInReports(t *testing.T) {
	res := certRepeatedResults("MutatingBeforeValidating")
	rep := report.Build(res, nil)
	if err := rep.Validate(); err != nil {
		t.Fatal(err)
	}
	core := rep.Profiles[0]
	if rep.Result != report.Failure || core.Result != report.Failure || core.Statistics.Flaky != 1 || len(core.Flaky) != 1 ||
		core.Flaky[0].PassRate == nil || core.Flaky[0].PassRate.Passed != 2 {
		t.Fatalf("report %s, core %s %+v, flaky %+v", rep.Result, core.Result, core.Statistics, core.Flaky)
	}
	doc := junit.FromResults(res)
	found := false
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Status == string(results.Flaky) {
				found = true
				if c.Failure == nil || c.Failure.Type != "flaky" || !strings.Contains(c.Failure.Text, "repetition 2: failed") {
					t.Errorf("flaky junit case %+v", c)
				}
			}
		}
	}
	if !found || doc.Failures != 1 {
		t.Errorf("junit: flaky case found %t, %d failures", found, doc.Failures)
	}
}

// --rerun-failed runs the flaky specs again, as it does the failed ones:
// a flaky case never passed.
func TestRerunFailedIncludesFlakyCases(t *testing.T) {
	res := certRepeatedResults("MutatingWebhooksInListedOrder")
	path, err := results.Write(t.TempDir(), res)
	if err != nil {
		t.Fatal(err)
	}
	filter, err := runconfig.FailedFilter(path)
	if err != nil || filter != "spec:MutatingWebhooksInListedOrder" {
		t.Fatalf("filter %q, %v", filter, err)
	}
}
