package compare

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Run is one run of a matrix, for example the full run on one Kubernetes
// version.
type Run struct {
	// Name heads the run's column; RunName gives the usual one.
	Name string
	// Source is the results.json the run was read from.
	Source  string
	Results results.Results
}

// RunName names a run's column by the Kubernetes version its results.json
// records, or else by the folder holding it.
func RunName(res results.Results, source string) string {
	if v := res.Cluster.KubernetesVersion; v != "" {
		return v
	}
	if filepath.Base(source) == results.FileName {
		source = filepath.Dir(source)
	}
	if name := filepath.Base(source); name != "." && name != string(filepath.Separator) {
		return name
	}
	return source
}

// MatrixRun describes one column of a matrix.
type MatrixRun struct {
	Name              string          `json:"name"`
	Source            string          `json:"source,omitempty"`
	KubernetesVersion string          `json:"kubernetesVersion,omitempty"`
	HarnessVersion    string          `json:"harnessVersion,omitempty"`
	StartedAt         time.Time       `json:"startedAt"`
	DurationSeconds   float64         `json:"durationSeconds"`
	Summary           results.Summary `json:"summary"`
}

// CaseRow is one spec case's state in every run.
type CaseRow struct {
	// Case is the suite and the case's full name, as Compare keys cases.
	Case      string `json:"case"`
	Suite     string `json:"suite"`
	ShortName string `json:"shortName,omitempty"`
	Name      string `json:"name"`
	Profile   string `json:"profile,omitempty"`
	// States has one entry per run, in the runs' order; an empty state means
	// the case is absent from that run.
	States []results.State `json:"states"`
	// Messages has one entry per run: the reason a case did not pass.
	Messages []string `json:"messages,omitempty"`
	// Differs is set when the states are not all the same.
	Differs bool `json:"differs"`
}

// Cell is one run's value of a measurement.
type Cell struct {
	Value  float64  `json:"value"`
	Unit   string   `json:"unit"`
	Bound  *float64 `json:"bound,omitempty"`
	Lower  *float64 `json:"lower,omitempty"`
	Within bool     `json:"within"`
}

// MeasurementRow is one measurement (a case, a name, labels and the
// occurrence among repeats) in every run.
type MeasurementRow struct {
	Case       string `json:"case"`
	Name       string `json:"name"`
	Labels     string `json:"labels,omitempty"`
	Occurrence int    `json:"occurrence"`
	// Unit, Bound and Lower are those of the first run that has a value.
	Unit  string   `json:"unit"`
	Bound *float64 `json:"bound,omitempty"`
	Lower *float64 `json:"lower,omitempty"`
	// Values has one entry per run, in the runs' order; null where the run
	// has no such measurement.
	Values []*Cell `json:"values"`
	// Differs is set when the runs disagree beyond noise; Reason says how.
	Differs bool   `json:"differs"`
	Reason  string `json:"reason,omitempty"`
}

// Matrix is N runs side by side: every case's state and every
// measurement's value per run.
type Matrix struct {
	Thresholds   Thresholds       `json:"thresholds"`
	Runs         []MatrixRun      `json:"runs"`
	Cases        []CaseRow        `json:"cases"`
	Measurements []MeasurementRow `json:"measurements"`
	// CasesDiffering and MeasurementsDiffering count the rows marked Differs.
	CasesDiffering        int `json:"casesDiffering"`
	MeasurementsDiffering int `json:"measurementsDiffering"`
}

// NewMatrix lays runs side by side, cases and measurements in the order
// Compare uses. A measurement row differs when its values are not all
// present, when their units or bounds differ, when it is within its bounds
// in one run and not in another, or when the largest value exceeds the
// smallest beyond the thresholds (as Compare would flag the smallest run
// against the largest). Column names that repeat get the run's folder
// appended, then a number.
func NewMatrix(runs []Run, th Thresholds) Matrix {
	m := Matrix{Thresholds: th, Runs: []MatrixRun{}, Cases: []CaseRow{}, Measurements: []MeasurementRow{}}
	names := uniqueNames(runs)
	cases := make([]map[string]results.Spec, len(runs))
	for i, r := range runs {
		res := r.Results
		mr := MatrixRun{Name: names[i], Source: r.Source, KubernetesVersion: res.Cluster.KubernetesVersion,
			HarnessVersion: res.HarnessVersion, StartedAt: res.StartedAt, Summary: res.Summary}
		if !res.FinishedAt.IsZero() && res.FinishedAt.After(res.StartedAt) {
			mr.DurationSeconds = res.FinishedAt.Sub(res.StartedAt).Seconds()
		}
		m.Runs = append(m.Runs, mr)
		cases[i] = byCase(res)
	}
	for _, key := range unionAll(cases) {
		row := CaseRow{Case: key, States: make([]results.State, len(runs)), Messages: make([]string, len(runs))}
		measured := make([][]results.Measurement, len(runs))
		anyMessage := false
		for i, byKey := range cases {
			s, ok := byKey[key]
			if !ok {
				continue
			}
			if row.Suite == "" {
				row.Suite, row.ShortName, row.Name, row.Profile = s.Suite, s.ShortName, s.Name, s.Profile
			}
			row.States[i] = s.State
			if s.State != results.Passed && s.Message != "" {
				row.Messages[i], anyMessage = s.Message, true
			}
			measured[i] = s.Measurements
		}
		if !anyMessage {
			row.Messages = nil
		}
		for _, st := range row.States {
			if st != row.States[0] {
				row.Differs = true
			}
		}
		if row.Differs {
			m.CasesDiffering++
		}
		m.Cases = append(m.Cases, row)
		m.addMeasurements(key, measured)
	}
	return m
}

func (m *Matrix) addMeasurements(caseKey string, perRun [][]results.Measurement) {
	keyed := make([]map[string]numbered, len(perRun))
	for i, ms := range perRun {
		keyed[i] = byMeasurement(ms)
	}
	for _, key := range unionAll(keyed) {
		row := MeasurementRow{Case: caseKey, Values: make([]*Cell, len(perRun))}
		var present []results.Measurement
		for i, byKey := range keyed {
			n, ok := byKey[key]
			if !ok {
				continue
			}
			if len(present) == 0 {
				row.Name, row.Labels, row.Occurrence = n.Name, LabelString(n.Labels), n.occurrence
				row.Unit, row.Bound, row.Lower = n.Unit, n.Bound, n.Lower
			}
			present = append(present, n.Measurement)
			row.Values[i] = &Cell{Value: n.Value, Unit: n.Unit, Bound: n.Bound, Lower: n.Lower, Within: n.Within()}
		}
		row.Reason = m.Thresholds.disagreement(present, len(perRun))
		row.Differs = row.Reason != ""
		if row.Differs {
			m.MeasurementsDiffering++
		}
		m.Measurements = append(m.Measurements, row)
	}
}

// disagreement says how the values of one measurement in n runs disagree,
// or "" when they agree within the thresholds.
func (th Thresholds) disagreement(present []results.Measurement, n int) string {
	if len(present) < n {
		return fmt.Sprintf("measured in %d of %d runs", len(present), n)
	}
	first := present[0]
	lo, hi := first, first
	within, outside := 0, 0
	for _, p := range present {
		if p.Unit != first.Unit {
			return fmt.Sprintf("units differ (%s, %s): not comparable", first.Unit, p.Unit)
		}
		if !sameBound(p.Bound, first.Bound) || !sameBound(p.Lower, first.Lower) {
			return "bounds differ"
		}
		if p.Within() {
			within++
		} else {
			outside++
		}
		if p.Value < lo.Value {
			lo = p
		}
		if p.Value > hi.Value {
			hi = p
		}
	}
	if within > 0 && outside > 0 {
		return fmt.Sprintf("out of its bounds in %d of %d runs", outside, n)
	}
	delta := hi.Value - lo.Value
	rel := relative(delta, lo.Value)
	if (Diff{Thresholds: th}).beyond(delta, rel, hi) {
		if math.IsInf(rel, 0) {
			return "largest exceeds smallest (0) beyond the thresholds"
		}
		return fmt.Sprintf("largest exceeds smallest by %+.0f%%, beyond the thresholds", rel*100)
	}
	return ""
}

func sameBound(a, b *float64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// uniqueNames returns the runs' column names, told apart where they repeat.
func uniqueNames(runs []Run) []string {
	names := make([]string, len(runs))
	count := map[string]int{}
	for i, r := range runs {
		names[i] = r.Name
		if names[i] == "" {
			names[i] = RunName(r.Results, r.Source)
		}
		count[names[i]]++
	}
	seen := map[string]bool{}
	for i, r := range runs {
		if count[names[i]] > 1 {
			if dir := RunName(results.Results{}, r.Source); dir != "" && dir != names[i] {
				names[i] += " (" + dir + ")"
			}
		}
		base := names[i]
		for n := 2; seen[names[i]]; n++ {
			names[i] = fmt.Sprintf("%s #%d", base, n)
		}
		seen[names[i]] = true
	}
	return names
}

// unionAll is the sorted union of the maps' keys.
func unionAll[V any](maps []map[string]V) []string {
	set := map[string]bool{}
	for _, m := range maps {
		for k := range m {
			set[k] = true
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
