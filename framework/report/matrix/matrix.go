// Package matrix aggregates the runs of a conformance matrix (run-conformance
// matrix): one run per target cluster, each with its own report dir, into
// matrix.json (machine-readable) and matrix.html (one self-contained page:
// spec cases × targets, measurements side by side, each target's profile
// results, and the cells that regressed since the matrix dir's previous
// run). It reads only results.json files: no cluster.
package matrix

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/report"
	"github.com/admission-conformance/admission-conformance/framework/report/compare"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// APIVersion, Kind and the file names.
const (
	APIVersion = "admission-conformance.io/v1alpha1"
	Kind       = "MatrixResults"
	JSONName   = "matrix.json"
	HTMLName   = "matrix.html"
)

// TargetState is how a target's run went.
type TargetState string

const (
	// Passed: the run ended with every selected case passed (exit 0).
	Passed TargetState = "passed"
	// Failed: the run ended and a case failed, or it was interrupted once
	// specs ran (exit 1).
	Failed TargetState = "failed"
	// Error: the target could not be reached or set up, or gave no
	// results (exit 2).
	Error TargetState = "error"
)

// Exit codes of a matrix.
const (
	ExitPassed = 0
	ExitFailed = 1
	ExitError  = 2
)

// Input is one target's run as the matrix runner saw it.
type Input struct {
	Name string
	// Description says what the target is, e.g. "kubeconfig prod (context
	// admin)" or "kind ha, node image ...".
	Description string
	// ExitCode is the target's run's exit code; Error its error line.
	ExitCode int
	Error    string
	Duration time.Duration
	// ReportDir is the target's report dir, relative to the matrix dir.
	ReportDir string
	// Results are the run's results.json, nil if it wrote none.
	Results *results.Results
	// Previous are the target's results in the matrix dir's previous run,
	// nil if there was none.
	Previous *results.Results
}

// Matrix is the content of matrix.json.
type Matrix struct {
	APIVersion     string    `json:"apiVersion"`
	Kind           string    `json:"kind"`
	HarnessVersion string    `json:"harnessVersion,omitempty"`
	StartedAt      time.Time `json:"startedAt"`
	FinishedAt     time.Time `json:"finishedAt"`
	// Previous says whether an earlier matrix run was compared with.
	Previous bool     `json:"comparedWithPrevious"`
	Targets  []Target `json:"targets"`
	// Cases are the spec cases of every target, in suite order, but for
	// those no target's selection held (NotSelected counts them).
	Cases        []Case           `json:"cases"`
	NotSelected  int              `json:"notSelectedCases,omitempty"`
	Measurements []MeasurementRow `json:"measurements"`
	// ExitCode is the matrix's: 2 if a target could not be run, else 1 if a
	// target failed a case, else 0.
	ExitCode int `json:"exitCode"`
}

// Target is one target's outcome.
type Target struct {
	Name              string           `json:"name"`
	Description       string           `json:"description,omitempty"`
	State             TargetState      `json:"state"`
	ExitCode          int              `json:"exitCode"`
	Error             string           `json:"error,omitempty"`
	DurationSeconds   float64          `json:"durationSeconds"`
	ReportDir         string           `json:"reportDir"`
	Provider          string           `json:"provider,omitempty"`
	Topology          string           `json:"topology,omitempty"`
	KubernetesVersion string           `json:"kubernetesVersion,omitempty"`
	Result            report.Result    `json:"result,omitempty"`
	Profiles          []Profile        `json:"profiles,omitempty"`
	Summary           *results.Summary `json:"summary,omitempty"`
	// Regressions counts this target's regressed cells (cases and
	// measurements) against the previous run.
	Regressions int `json:"regressions"`
	// WasRun says the previous matrix run had results for this target.
	WasRun bool `json:"previouslyRun"`
}

// Profile is one profile's result on a target.
type Profile struct {
	Name       string            `json:"name"`
	Result     report.Result     `json:"result"`
	Statistics report.Statistics `json:"statistics"`
}

// Case is one spec case across the targets.
type Case struct {
	Suite     string `json:"suite"`
	ShortName string `json:"shortName"`
	Name      string `json:"name"`
	Profile   string `json:"profile,omitempty"`
	// Cells are by target name; a target without the case (or without
	// results) has none.
	Cells map[string]Cell `json:"cells"`
}

// Cell is a case on a target.
type Cell struct {
	State   results.State `json:"state"`
	Message string        `json:"message,omitempty"`
	// Regressed: passed before and not now, or failed now and not before.
	Regressed bool          `json:"regressed,omitempty"`
	Previous  results.State `json:"previous,omitempty"`
}

// MeasurementRow is one measurement of one case, side by side on the
// targets. Repeats of a name and labels within a case are numbered.
type MeasurementRow struct {
	Case       string           `json:"case"`
	Name       string           `json:"name"`
	Labels     string           `json:"labels,omitempty"`
	Occurrence int              `json:"occurrence"`
	Unit       string           `json:"unit"`
	Values     map[string]Value `json:"values"`
}

// Value is a measurement's value on a target.
type Value struct {
	Value  float64  `json:"value"`
	Bound  *float64 `json:"bound,omitempty"`
	Lower  *float64 `json:"lower,omitempty"`
	Within bool     `json:"within"`
	// Regressed: grew beyond the thresholds or left its bounds since the
	// previous run (framework/report/compare).
	Regressed bool    `json:"regressed,omitempty"`
	Previous  float64 `json:"previous,omitempty"`
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

// Build aggregates the targets' runs.
func Build(inputs []Input, started, finished time.Time, harnessVersion string) Matrix {
	m := Matrix{APIVersion: APIVersion, Kind: Kind, HarnessVersion: harnessVersion, StartedAt: started.UTC(), FinishedAt: finished.UTC(),
		Targets: []Target{}, Cases: []Case{}, Measurements: []MeasurementRow{}}
	cases := map[string]*Case{}
	rows := map[string]*MeasurementRow{}
	for _, in := range inputs {
		t := Target{Name: in.Name, Description: in.Description, ExitCode: in.ExitCode, Error: in.Error,
			DurationSeconds: in.Duration.Seconds(), ReportDir: in.ReportDir, State: StateOf(in.ExitCode, in.Results)}
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
		res := *in.Results
		rep := report.Build(res, nil)
		t.Provider, t.Topology, t.KubernetesVersion = res.Cluster.Provider, res.Cluster.Topology, res.Cluster.KubernetesVersion
		t.Result = rep.Result
		for _, p := range rep.Profiles {
			t.Profiles = append(t.Profiles, Profile{Name: p.Name, Result: p.Result, Statistics: p.Statistics})
		}
		summary := res.Summary
		t.Summary = &summary
		var diff compare.Diff
		if in.Previous != nil {
			diff = compare.Compare(*in.Previous, res, compare.DefaultThresholds())
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
			key := caseKey(s)
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
					row = &MeasurementRow{Case: key, Name: ms.Name, Labels: labels, Occurrence: n, Unit: ms.Unit, Values: map[string]Value{}}
					rows[mk] = row
				}
				v := Value{Value: ms.Value, Bound: ms.Bound, Lower: ms.Lower, Within: ms.Within()}
				if old, ok := regressedValue[mk]; ok {
					v.Regressed, v.Previous = true, old
					t.Regressions++
				}
				row.Values[in.Name] = v
			}
		}
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
	m.ExitCode = ExitPassed
	for _, t := range m.Targets {
		switch t.State {
		case Error:
			m.ExitCode = ExitError
		case Failed:
			if m.ExitCode == ExitPassed {
				m.ExitCode = ExitFailed
			}
		}
	}
	return m
}

// caseKey is how framework/report/compare names a case.
func caseKey(s results.Spec) string { return s.Suite + "/" + s.Name }

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

// Write writes matrix.json and matrix.html into dir.
func Write(dir string, m Matrix) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, JSONName), append(data, '\n'), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, HTMLName))
	if err != nil {
		return err
	}
	if err := Render(f, m); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Read reads a matrix.json.
func Read(path string) (Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Matrix{}, err
	}
	var m Matrix
	if err := json.Unmarshal(data, &m); err != nil {
		return Matrix{}, fmt.Errorf("%s is not a %s: %w", path, JSONName, err)
	}
	if m.Kind != Kind {
		return Matrix{}, fmt.Errorf("%s is not a %s (kind %q)", path, JSONName, m.Kind)
	}
	return m, nil
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
