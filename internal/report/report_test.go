package report_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

var impl = &report.Implementation{
	Organization: "Example Org", Project: "example-admission", URL: "https://example.com/admission",
	Version: "v1.2.3", Contact: []string{"@example/maintainers"},
}

func TestReportRoundTripsThroughYAML(t *testing.T) {
	want := report.Build(reporttest.Results(time.Date(2026, 5, 1, 10, 0, 0, 123, time.UTC), 1), impl)
	if err := want.Validate(); err != nil {
		t.Fatalf("a built report does not validate: %v", err)
	}
	dir := t.TempDir()
	path, err := report.Write(dir, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := report.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip changed the report:\n got %+v\nwant %+v", got, want)
	}
	data, _ := os.ReadFile(path)
	for _, field := range []string{"apiVersion: admission-conformance.io/v1alpha1", "kind: ConformanceReport", "organization: Example Org", "harnessVersion:", "kubernetesVersion: v1.36.3", "topology:"} {
		if !strings.Contains(string(data), field) {
			t.Errorf("report.yaml lacks %q:\n%s", field, data)
		}
	}
}

func TestProfileResults(t *testing.T) {
	r := report.Build(reporttest.Results(time.Now(), 1), nil)
	want := map[string]report.Result{"core": report.Failure, "extended": report.Success, "reference": report.NotRun}
	for _, p := range r.Profiles {
		if p.Result != want[p.Name] {
			t.Errorf("profile %s is %s, want %s (%+v)", p.Name, p.Result, want[p.Name], p.Statistics)
		}
	}
	if r.Result != report.Failure {
		t.Errorf("overall %s, want failure", r.Result)
	}
	ext := r.Profiles[1]
	if !reflect.DeepEqual(ext.SupportedFeatures, []string{"NodeAdmission", "WebhookConfigurationOrder"}) ||
		!reflect.DeepEqual(ext.UnsupportedFeatures, []string{"NodeAdmissionPlugins"}) {
		t.Errorf("extended features: supported %v, unsupported %v", ext.SupportedFeatures, ext.UnsupportedFeatures)
	}
	if len(r.Profiles[0].Failed) != 1 || !strings.Contains(r.Profiles[0].Failed[0].Reason, "replica 2") {
		t.Errorf("core failures %+v", r.Profiles[0].Failed)
	}
	if len(r.Measurements) != 9 {
		t.Errorf("%d measurements, want 9", len(r.Measurements))
	}
}

// A core case that did not run makes core partial, never success, even
// when everything that ran passed; an extended case that is not supported
// does not make extended partial.
func TestSkippedOrNotSupportedCoreIsPartial(t *testing.T) {
	for _, state := range []results.State{results.Skipped, results.NotSupported} {
		res := results.Results{Specs: []results.Spec{
			{Suite: "ordering", ShortName: "A", Name: "A", Profile: "core", State: results.Passed},
			{Suite: "ordering", ShortName: "B", Name: "B", Profile: "core", State: state, Message: "why"},
			{Suite: "ordering", ShortName: "C", Name: "C", Profile: "extended", State: results.Passed},
			{Suite: "ordering", ShortName: "D", Name: "D", Profile: "extended", State: results.NotSupported, Message: "why"},
		}, FinishedAt: time.Now()}
		r := report.Build(res, nil)
		if r.Profiles[0].Result != report.Partial || r.Result != report.Partial {
			t.Errorf("%s core case: core %s, overall %s; want partial", state, r.Profiles[0].Result, r.Result)
		}
		if r.Profiles[1].Result != report.Success {
			t.Errorf("extended with an unsupported case: %s, want success", r.Profiles[1].Result)
		}
	}
	all := report.Build(results.Results{FinishedAt: time.Now(), Specs: []results.Spec{
		{Suite: "ordering", ShortName: "A", Name: "A", Profile: "core", State: results.Passed},
	}}, nil)
	if all.Result != report.Success || all.Profiles[0].Result != report.Success {
		t.Errorf("all core passed: core %s, overall %s", all.Profiles[0].Result, all.Result)
	}
}

func TestHarnessFailureFailsTheReport(t *testing.T) {
	r := report.Build(results.Results{FinishedAt: time.Now(), Specs: []results.Spec{
		{Suite: "ordering", ShortName: "A", Name: "A", Profile: "core", State: results.Passed},
		{Suite: "harness", ShortName: "BeforeSuite", Name: "BeforeSuite", State: results.Failed, Message: "boom"},
	}}, nil)
	if r.Result != report.Failure || len(r.HarnessFailures) != 1 {
		t.Errorf("result %s, harness failures %+v", r.Result, r.HarnessFailures)
	}
}

func TestReadRejectsInvalidReports(t *testing.T) {
	good, err := report.Marshal(report.Build(reporttest.Results(time.Now(), 1), impl))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ from, to, want string }{
		"unknown field":        {"kind: ConformanceReport", "kind: ConformanceReport\ncolour: green", "colour"},
		"wrong kind":           {"kind: ConformanceReport", "kind: Results", "want admission-conformance.io/v1alpha1/ConformanceReport"},
		"unknown result":       {"result: failure", "result: fine", `result "fine"`},
		"success with a skip":  {"  result: failure", "  result: success", "failed but the result is success"},
		"bad implementation":   {"url: https://example.com/admission", "url: example.com", "not an absolute http(s) URL"},
		"statistics disagree":  {"    passed: 2", "    passed: 3", "do not add up"},
		"within contradicts":   {"within: false", "within: true", "within is true"},
		"missing organization": {"organization: Example Org", "organization: \"\"", "organization missing"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(string(good), c.from, c.to, 1)
			if bad == string(good) {
				t.Fatalf("%q is not in the report:\n%s", c.from, good)
			}
			path := filepath.Join(t.TempDir(), "report.yaml")
			if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := report.Read(path); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}
