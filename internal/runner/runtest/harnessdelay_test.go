// Package runtest runs a real Ginkgo suite through runner.Run on no
// cluster. It is a package of its own because Ginkgo allows one suite run
// per test binary (and refuses go test -count), which the runner's own unit
// tests need not inherit.
package runtest

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/lateness"
	"github.com/admission-conformance/admission-conformance/internal/runner"
)

// stall makes the monitor's next sleep last this much longer: the harness
// starved on purpose, without loading the machine.
var stall = make(chan time.Duration)

const stallFor = 150 * time.Millisecond

// starve stalls the monitor and waits until the stalled wake-up is over.
func starve() {
	stall <- stallFor
	time.Sleep(stallFor + 100*time.Millisecond)
}

var _ = ginkgo.Describe("HarnessDelay", func() {
	ginkgo.It("fails while the harness is starved", func() {
		starve()
		ginkgo.Fail("the webhook answered late")
	})
	ginkgo.It("passes while the harness is starved", func() { starve() })
	ginkgo.It("is never run", func() {})
})

// A bound recorded is asserted (harness's measurement check), whatever
// the case's own assertions say.
var _ = ginkgo.Describe("RecordedBounds", func() {
	record := func(value float64) {
		ginkgo.AddReportEntry(results.MeasurementEntry, results.Measurement{Name: "latency", Value: value, Unit: "s",
			Lower: ptr.To(0.5), Bound: ptr.To(1.0)}, ginkgo.ReportEntryVisibilityNever)
	}
	ginkgo.It("passes a measurement within its bounds", func() { record(0.8) })
	ginkgo.It("fails a measurement over its bound", func() { record(1.2) })
	ginkgo.It("fails a measurement under its lower bound", func() { record(0.2) })
})

func stallingSleep(d time.Duration, stop <-chan struct{}) bool {
	select {
	case extra := <-stall:
		d += extra
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	}
}

// The whole path through a real Ginkgo run, on no cluster: every case that
// ran has its delay, and only the starved failure says so.
func TestRunRecordsEachCasesHarnessDelayAndNotesStarvedFailures(t *testing.T) {
	env := &harness.Env{Cluster: stubCluster{}, Bounds: bounds.Defaults()}
	res := runner.Run(&quietT{}, env, runner.Options{
		Selection:    runner.Selection{Skip: []string{"is never run"}},
		Progress:     io.Discard,
		GinkgoOutput: io.Discard,
		Plain:        true,
		Lateness:     lateness.Options{Tick: 5 * time.Millisecond, Sleep: stallingSleep},
	})
	byName := map[string]results.Spec{}
	for _, s := range res.Specs {
		byName[s.Name] = s
	}
	failed, passed, skipped := byName["HarnessDelay fails while the harness is starved"], byName["HarnessDelay passes while the harness is starved"], byName["HarnessDelay is never run"]
	if failed.State != results.Failed || failed.HarnessDelayMs == nil || *failed.HarnessDelayMs < float64(stallFor.Milliseconds()) {
		t.Fatalf("the starved failure: %+v", failed)
	}
	if !strings.HasPrefix(failed.Message, "the webhook answered late\n"+results.StarvedPrefix) {
		t.Errorf("the starved failure's message: %q", failed.Message)
	}
	if passed.State != results.Passed || passed.HarnessDelayMs == nil || *passed.HarnessDelayMs < float64(stallFor.Milliseconds()) || passed.Message != "" {
		t.Errorf("the starved pass: %+v", passed)
	}
	if skipped.State != results.Skipped || skipped.HarnessDelayMs != nil {
		t.Errorf("a case that never ran: %+v", skipped)
	}
	// The same run (Ginkgo runs one suite per test binary): the recorded
	// bounds.
	if within := byName["RecordedBounds passes a measurement within its bounds"]; within.State != results.Passed {
		t.Errorf("a measurement within its bounds: %+v", within)
	}
	for _, name := range []string{"RecordedBounds fails a measurement over its bound", "RecordedBounds fails a measurement under its lower bound"} {
		if c := byName[name]; c.State != results.Failed || !strings.Contains(c.Message, "recorded outside their bounds") {
			t.Errorf("%s: %s, %q", name, c.State, c.Message)
		}
	}
}

type quietT struct{}

func (quietT) Fail() {}

type stubCluster struct{}

func (stubCluster) Provider() string               { return "stub" }
func (stubCluster) RESTConfig() *rest.Config       { return &rest.Config{} }
func (stubCluster) ReplicaConfigs() []*rest.Config { return nil }
func (stubCluster) Nodes() []cluster.Node          { return nil }
func (stubCluster) Capabilities() features.Set     { return features.Set{} }
func (stubCluster) Topology() string               { return "none" }
func (stubCluster) Stop(ctx context.Context) error { return nil }
