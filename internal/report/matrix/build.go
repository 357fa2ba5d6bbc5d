package matrix

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
)

// Input is one target's run as its producer saw it.
type Input struct {
	// Name heads the target's column; empty: RunName of its results.
	Name string
	// Description says what the target is, e.g. "kubeconfig prod (context
	// admin)" or "kind ha, node image ...".
	Description string
	// PreRelease marks a target running a pre-release of Kubernetes
	// (hack/versions: v1.38.0-beta.0): its column says so.
	PreRelease bool
	// ExitCode is the target's run's exit code; Error its error line.
	ExitCode int
	Error    string
	Duration time.Duration
	// Steps time the steps of the run, if the producer has them.
	Steps []Step
	// ReportDir is the target's report dir, relative to the matrix dir;
	// Source the results.json it was read from.
	ReportDir string
	Source    string
	// Results are the run's results.json, nil if it wrote none.
	Results *results.Results
	// Previous are the target's results in the matrix dir's previous run,
	// nil if there was none.
	Previous *results.Results
}

// Header is what a producer says of the matrix as a whole.
type Header struct {
	Title             string
	HarnessVersion    string
	Started, Finished time.Time
	RunFlags          []string
	// Thresholds: compare.DefaultThresholds() unless the user set them.
	Thresholds compare.Thresholds
}

// StateOf is a target's state from its run's exit code and results.
func StateOf(exitCode int, res *results.Results) TargetState {
	switch {
	case res == nil || exitCode == ExitError:
		return Error
	case exitCode == ExitPassed:
		return Passed
	default:
		return Failed
	}
}

// Build lays the targets' runs side by side.
func Build(inputs []Input, h Header) Matrix {
	m := Matrix{APIVersion: APIVersion, Kind: Kind, Title: h.Title, HarnessVersion: h.HarnessVersion,
		StartedAt: h.Started.UTC(), FinishedAt: h.Finished.UTC(), RunFlags: h.RunFlags, Thresholds: h.Thresholds,
		Targets: []Target{}, Cases: []Case{}, Measurements: []MeasurementRow{}}
	cases := map[string]*Case{}
	rows := map[string]*MeasurementRow{}
	for i, name := range uniqueNames(inputs) {
		in := inputs[i]
		in.Name = name
		t := Target{Name: name, Description: in.Description, PreRelease: in.PreRelease, ExitCode: in.ExitCode, Error: in.Error, Steps: in.Steps,
			DurationSeconds: in.Duration.Seconds(), ReportDir: in.ReportDir, Source: in.Source, State: StateOf(in.ExitCode, in.Results)}
		if in.Previous != nil {
			m.Previous, t.WasRun = true, true
		}
		if in.Results == nil {
			if t.Error == "" {
				t.Error = "the run wrote no results"
			}
			m.Targets = append(m.Targets, t)
			continue
		}
		describe(&t, *in.Results)
		m.addCells(&t, in, cases, rows)
		m.Targets = append(m.Targets, t)
	}
	for _, c := range cases {
		if notSelectedAnywhere(c) {
			m.NotSelected++
			continue
		}
		m.Cases = append(m.Cases, *c)
	}
	sort.Slice(m.Cases, func(i, j int) bool {
		a, b := m.Cases[i], m.Cases[j]
		if sa, sb := suiteRank(a.Suite), suiteRank(b.Suite); sa != sb {
			return sa < sb
		}
		if a.ShortName != b.ShortName {
			return a.ShortName < b.ShortName
		}
		return a.Name < b.Name
	})
	for _, r := range rows {
		m.Measurements = append(m.Measurements, *r)
	}
	sort.Slice(m.Measurements, func(i, j int) bool {
		a, b := m.Measurements[i], m.Measurements[j]
		return measurementKey(a.Case, a.Name, a.Labels, a.Occurrence) < measurementKey(b.Case, b.Name, b.Labels, b.Occurrence)
	})
	m.markDifferences()
	m.ExitCode = exitCodeOf(m.Targets)
	return m
}

// describe copies what the target's results say of its cluster and run.
func describe(t *Target, res results.Results) {
	rep := report.Build(res, nil)
	t.Provider, t.Topology, t.KubernetesVersion = res.Cluster.Provider, res.Cluster.Topology, res.Cluster.KubernetesVersion
	t.HarnessVersion = res.HarnessVersion
	if !res.StartedAt.IsZero() {
		started := res.StartedAt.UTC()
		t.StartedAt = &started
	}
	t.Result = rep.Result
	for _, p := range rep.Profiles {
		t.Profiles = append(t.Profiles, Profile{Name: p.Name, Result: p.Result, Statistics: p.Statistics})
	}
	summary := res.Summary
	t.Summary = &summary
}

// addCells adds the target's cases and measurements, marking those that
// regressed since its previous run.
func (m *Matrix) addCells(t *Target, in Input, cases map[string]*Case, rows map[string]*MeasurementRow) {
	res := *in.Results
	var diff compare.Diff
	if in.Previous != nil {
		diff = compare.Compare(*in.Previous, res, m.Thresholds)
	}
	regressedCase := map[string]results.State{}
	for _, s := range diff.States {
		if s.Regression && s.New != "" {
			regressedCase[s.Case] = s.Old
		}
	}
	regressedValue := map[string]float64{}
	for _, mc := range diff.Measurements {
		if mc.Regression {
			regressedValue[measurementKey(mc.Case, mc.Name, mc.Labels, mc.Occurrence)] = mc.Old
		}
	}
	for _, s := range res.Specs {
		key := s.Key()
		c := cases[key]
		if c == nil {
			c = &Case{Suite: s.Suite, ShortName: s.ShortName, Name: s.Name, Profile: s.Profile, Cells: map[string]Cell{}}
			cases[key] = c
		}
		cell := Cell{State: s.State, Message: firstLine(s.Message)}
		if old, ok := regressedCase[key]; ok {
			cell.Regressed, cell.Previous = true, old
			t.Regressions++
		}
		c.Cells[in.Name] = cell
		seen := map[string]int{}
		for _, ms := range s.Measurements {
			labels := compare.LabelString(ms.Labels)
			seen[ms.Name+labels]++
			n := seen[ms.Name+labels]
			mk := measurementKey(key, ms.Name, labels, n)
			row := rows[mk]
			if row == nil {
				row = &MeasurementRow{Case: key, Name: ms.Name, Labels: labels, Occurrence: n,
					Unit: ms.Unit, Bound: ms.Bound, Lower: ms.Lower, Values: map[string]Value{}}
				rows[mk] = row
			}
			v := Value{Value: ms.Value, Unit: ms.Unit, Bound: ms.Bound, Lower: ms.Lower, Within: ms.Within()}
			if old, ok := regressedValue[mk]; ok {
				v.Regressed, v.Previous = true, old
				t.Regressions++
			}
			row.Values[in.Name] = v
		}
	}
}

// exitCodeOf is 2 if a target could not be run, else 1 if one failed a
// case, else 0.
func exitCodeOf(targets []Target) int {
	code := ExitPassed
	for _, t := range targets {
		switch t.State {
		case Error:
			return ExitError
		case Failed:
			code = ExitFailed
		}
	}
	return code
}

func measurementKey(caseKey, name, labels string, occurrence int) string {
	return fmt.Sprintf("%s|%s%s#%04d", caseKey, name, labels, occurrence)
}

func suiteRank(s string) int {
	for i, known := range spec.Suites {
		if known == s {
			return i + 1
		}
	}
	return 0 // harness-level entries first
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// notSelectedAnywhere: every target that has the case left it out of its
// selection, so its row would say nothing.
func notSelectedAnywhere(c *Case) bool {
	for _, cell := range c.Cells {
		if cell.State != results.Skipped || cell.Message != results.NotSelected {
			return false
		}
	}
	return len(c.Cells) > 0
}
