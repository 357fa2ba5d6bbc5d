// Package compare tells what changed between two runs: spec cases whose
// state changed, and measurements that moved beyond a threshold or crossed
// their bounds. A regression is a case that stopped passing or started
// failing, or a measurement that grew beyond the thresholds (measurements
// are durations and latencies: bigger is worse) or left its bounds.
package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Thresholds say how far a measurement may move before it counts as moved:
// beyond the relative threshold, and the absolute one for time units, and,
// for a measurement with an upper bound, beyond a fraction of that bound
// (a propagation of 5 ms then 40 ms against a 1 s bound is noise).
type Thresholds struct {
	// Relative is a fraction of the old value (0.25 = 25 %).
	Relative float64 `json:"relative"`
	// Absolute applies to measurements whose unit is a time unit.
	Absolute time.Duration `json:"absolute"`
	// OfBound is a fraction of the measurement's upper bound, if it has one.
	OfBound float64 `json:"ofBound"`
}

// DefaultThresholds ignore the noise seen between two runs on one machine:
// loopback latencies jump by tens of milliseconds, and policy propagation
// (policies recompile every second) moves by up to a second against its 2s
// bound.
func DefaultThresholds() Thresholds {
	return Thresholds{Relative: 0.25, Absolute: 10 * time.Millisecond, OfBound: 0.5}
}

// StateChange is a case whose state differs. An empty state means the case
// is absent from that run.
type StateChange struct {
	Case string        `json:"case"`
	Old  results.State `json:"old,omitempty"`
	New  results.State `json:"new,omitempty"`
	// OldPassRate and NewPassRate are the pass rates of a repeated case
	// (run --repeat), when that run has one.
	OldPassRate *results.PassRate `json:"oldPassRate,omitempty"`
	NewPassRate *results.PassRate `json:"newPassRate,omitempty"`
	Regression  bool              `json:"regression"`
}

// MeasurementChange is a measurement that moved beyond the thresholds or
// crossed its bounds.
type MeasurementChange struct {
	Case   string `json:"case"`
	Name   string `json:"name"`
	Labels string `json:"labels,omitempty"`
	// Occurrence tells repeats of one name and labels within a case apart
	// (1 for the first).
	Occurrence int     `json:"occurrence"`
	Unit       string  `json:"unit"`
	Old        float64 `json:"old"`
	New        float64 `json:"new"`
	// Relative is (new-old)/|old|; absent when old is 0.
	Relative   *float64 `json:"relative,omitempty"`
	Reason     string   `json:"reason"`
	Regression bool     `json:"regression"`
}

// Diff is the outcome of a comparison.
type Diff struct {
	Thresholds   Thresholds          `json:"thresholds"`
	Cases        int                 `json:"casesCompared"`
	Compared     int                 `json:"measurementsCompared"`
	States       []StateChange       `json:"stateChanges"`
	Measurements []MeasurementChange `json:"measurementChanges"`
	// CodeCoverage is set when both runs measured the implementation's
	// code coverage (make coverage): the packages whose coverage changed.
	CodeCoverage []CoverageChange `json:"codeCoverageChanges,omitempty"`
}

// Regressions counts the changes that are regressions.
func (d Diff) Regressions() int {
	n := 0
	for _, s := range d.States {
		if s.Regression {
			n++
		}
	}
	for _, m := range d.Measurements {
		if m.Regression {
			n++
		}
	}
	return n
}

// Compare compares two runs case by case (a case is its suite and full
// name).
func Compare(old, cur results.Results, th Thresholds) Diff {
	d := Diff{Thresholds: th, States: []StateChange{}, Measurements: []MeasurementChange{}}
	oldCases, curCases := byCase(old), byCase(cur)
	for _, key := range unionKeys(oldCases, curCases) {
		o, inOld := oldCases[key]
		c, inCur := curCases[key]
		if inOld && inCur {
			d.Cases++
		}
		var change StateChange
		change.Case = key
		if inOld {
			change.Old, change.OldPassRate = o.State, o.PassRate
		}
		if inCur {
			change.New, change.NewPassRate = c.State, c.PassRate
		}
		if change.Old != change.New {
			change.Regression = stateRegressed(change.Old, change.New)
			d.States = append(d.States, change)
		}
		if inOld && inCur {
			d.compareMeasurements(key, o.Measurements, c.Measurements)
		}
	}
	if old.CodeCoverage != nil && cur.CodeCoverage != nil {
		d.CodeCoverage = compareCodeCoverage(old.CodeCoverage, cur.CodeCoverage)
		if d.CodeCoverage == nil {
			d.CodeCoverage = []CoverageChange{}
		}
	}
	return d
}

// stateRegressed: a case stopped passing (passed -> anything, flaky
// included), or started failing (anything -> failed), or became flaky from
// anything but failed (flaky is never a pass; failed -> flaky improved).
func stateRegressed(old, cur results.State) bool {
	return old == results.Passed || cur == results.Failed || (cur == results.Flaky && old != results.Failed)
}

func (d *Diff) compareMeasurements(caseKey string, old, cur []results.Measurement) {
	oldBy, curBy := byMeasurement(old), byMeasurement(cur)
	for _, key := range unionKeys(oldBy, curBy) {
		o, inOld := oldBy[key]
		c, inCur := curBy[key]
		if !inOld || !inCur {
			continue
		}
		d.Compared++
		change := MeasurementChange{Case: caseKey, Name: c.Name, Labels: LabelString(c.Labels), Occurrence: c.occurrence, Unit: c.Unit, Old: o.Value, New: c.Value}
		if o.Unit != c.Unit {
			change.Reason = fmt.Sprintf("unit changed from %s to %s: not comparable", o.Unit, c.Unit)
			d.Measurements = append(d.Measurements, change)
			continue
		}
		delta := c.Value - o.Value
		rel := relative(delta, o.Value)
		if !math.IsInf(rel, 0) {
			change.Relative = &rel
		}
		switch {
		case o.Within() && !c.Within():
			change.Reason, change.Regression = "now out of its bounds", true
		case !o.Within() && c.Within():
			change.Reason = "back within its bounds"
		case d.beyond(delta, rel, c.Measurement):
			if delta > 0 {
				change.Reason, change.Regression = "grew beyond the thresholds", true
			} else {
				change.Reason = "shrank beyond the thresholds"
			}
		default:
			continue
		}
		d.Measurements = append(d.Measurements, change)
	}
}

func (d Diff) beyond(delta, rel float64, m results.Measurement) bool {
	if math.Abs(rel) <= d.Thresholds.Relative {
		return false
	}
	if m.Bound != nil && math.Abs(delta) <= d.Thresholds.OfBound*math.Abs(*m.Bound) {
		return false
	}
	if perSecond, ok := timeUnits[m.Unit]; ok {
		return math.Abs(delta) > d.Thresholds.Absolute.Seconds()*perSecond
	}
	return true
}

// timeUnits maps a unit to how many of it make a second.
var timeUnits = map[string]float64{"ns": 1e9, "us": 1e6, "µs": 1e6, "ms": 1e3, "s": 1, "m": 1.0 / 60, "min": 1.0 / 60, "h": 1.0 / 3600}

func relative(delta, old float64) float64 {
	if old == 0 {
		if delta == 0 {
			return 0
		}
		return math.Inf(int(math.Copysign(1, delta)))
	}
	return delta / math.Abs(old)
}

func byCase(r results.Results) map[string]results.Spec {
	out := map[string]results.Spec{}
	for _, s := range r.Specs {
		out[s.Key()] = s
	}
	return out
}

// numbered is a measurement with its occurrence among those of the same
// name and labels in its case.
type numbered struct {
	results.Measurement
	occurrence int
}

// byMeasurement keys measurements by name and labels; repeats of one key
// within a case are told apart by their order.
func byMeasurement(ms []results.Measurement) map[string]numbered {
	out := map[string]numbered{}
	seen := map[string]int{}
	for _, m := range ms {
		base := m.Name + LabelString(m.Labels)
		seen[base]++
		out[fmt.Sprintf("%s#%04d", base, seen[base])] = numbered{m, seen[base]}
	}
	return out
}

// LabelString writes a measurement's labels the way comparisons key them:
// {a=1,b=2}, sorted by name; empty for none.
func LabelString(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
