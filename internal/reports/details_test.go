package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

// run.log tells a failure's story with how late the harness's own wake-ups
// came, right after where it failed.
func TestRunLogDetailsShowTheHarnessDelay(t *testing.T) {
	res := reporttest.Results(time.Unix(0, 0), 1)
	var log bytes.Buffer
	writeDetails(&log, res, report.Build(res, nil))
	want := "at suites/webhooks/propagation.go:61\nharness wake-ups up to 42.5ms late\nmeasured webhook-config-propagation"
	if !strings.Contains(log.String(), want) {
		t.Errorf("run.log details lack %q:\n%s", want, log.String())
	}
}
