package junit_test

import (
	"encoding/xml"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

func TestJUnitHasOneTestcasePerCaseWithFailureMessages(t *testing.T) {
	res := reporttest.Results(time.Now(), 1)
	path, err := junit.Write(t.TempDir(), res)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junit.TestSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, data)
	}
	if doc.Tests != len(res.Specs) || doc.Failures != res.Summary.Failed || doc.Skipped != res.Summary.Skipped+res.Summary.NotSupported {
		t.Errorf("totals tests=%d failures=%d skipped=%d for summary %+v", doc.Tests, doc.Failures, doc.Skipped, res.Summary)
	}
	cases := map[string]junit.TestCase{}
	n := 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			cases[c.Classname] = c
			n++
		}
	}
	if n != len(res.Specs) {
		t.Fatalf("%d testcases for %d spec cases", n, len(res.Specs))
	}
	failed := cases["webhooks.ConfigurationPropagatesWithinBound"]
	if failed.Failure == nil || failed.Failure.Message != "replica 2 enforced the configuration after 1.4s" ||
		!strings.Contains(failed.Failure.Text, "#43 +1413.1ms validating v1.ac-ns.admission-conformance.io CREATE ac-ns/subject -> Hang, no answer") ||
		!strings.Contains(failed.Failure.Text, "at suites/webhooks/propagation.go:61") {
		t.Errorf("failure %+v", failed.Failure)
	}
	if !strings.Contains(failed.SystemOut, "webhook-config-propagation = 1.4 s {replica=2} bound 1 OUT OF BOUNDS") {
		t.Errorf("measurements in system-out: %q", failed.SystemOut)
	}
	notSupported := cases["nodeadmit.NodePluginsRunInParallel"]
	if notSupported.Skipped == nil || notSupported.Failure != nil || !strings.HasPrefix(notSupported.Skipped.Message, "not-supported: needs features NodeAdmissionPlugins") {
		t.Errorf("a not-supported case must be a skip with its reason: %+v", notSupported)
	}
	if passed := cases["ordering.MutatingBeforeValidatingOnCreate"]; passed.Failure != nil || passed.Skipped != nil || passed.Status != "passed" {
		t.Errorf("passed case %+v", passed)
	}
}
