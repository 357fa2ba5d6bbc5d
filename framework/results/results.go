// Package results is the machine-readable outcome of a run (results.json):
// one entry per spec case with its metadata, state and measurements. It is
// the one record report, compare and certify read, so a run is judged,
// compared with another or certified long after it ended, without running
// anything again.
package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// APIVersion and Kind identify the results.json format; a change that breaks
// readers bumps the version.
const (
	APIVersion = "admission-conformance.io/v1alpha1"
	Kind       = "Results"
	FileName   = "results.json"
)

// State is the outcome of one spec case.
type State string

const (
	Passed       State = "passed" // Flaky is in repeat.go
	Failed       State = "failed"
	Skipped      State = "skipped"
	NotSupported State = "not-supported"
)

// NotSupportedPrefix starts the skip message of a spec skipped because the
// cluster lacks a feature; the report turns it into NotSupported.
const NotSupportedPrefix = "not supported: "

// Measurement is one measured value with the bounds it was checked against.
type Measurement struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Bound is the upper bound the value must not exceed, if any.
	Bound *float64 `json:"bound,omitempty"`
	// Lower is the lower bound the value must reach, if any.
	Lower *float64 `json:"lower,omitempty"`
	// Labels tell measurements of one name apart, for example the replica.
	Labels map[string]string `json:"labels,omitempty"`
}

// Within reports whether the value respects its bounds.
func (m Measurement) Within() bool {
	return (m.Bound == nil || m.Value <= *m.Bound) && (m.Lower == nil || m.Value >= *m.Lower)
}

// Key names a case across runs and reports: its suite and full name (the
// spec's short name and the case's text), which no two cases share.
func (s Spec) Key() string { return s.Suite + "/" + s.Name }

// Spec is the result of one spec case.
type Spec struct {
	Suite        string        `json:"suite"`
	ShortName    string        `json:"shortName"`
	Name         string        `json:"name"`
	State        State         `json:"state"`
	Message      string        `json:"message,omitempty"`
	Location     string        `json:"location,omitempty"`
	Features     []string      `json:"features,omitempty"`
	Profile      string        `json:"profile,omitempty"`
	Seed         string        `json:"seed,omitempty"`
	Duration     float64       `json:"durationSeconds"`
	Measurements []Measurement `json:"measurements,omitempty"`
	// Journal is what the fake webhooks saw, attached to failed cases.
	Journal *JournalExcerpt `json:"journal,omitempty"`
	// HarnessDelayMs is how late, at most, the harness's own wake-ups came
	// while the case ran (internal/lateness), in milliseconds: a busy
	// machine shows here, whatever the implementation does. Absent for
	// cases that did not run, and from older harnesses.
	HarnessDelayMs *float64 `json:"harnessDelayMs,omitempty"`
	// Fields is what the case did with the admission API's fields
	// (internal/contract/fields): set, changed live, received, answered.
	Fields *FieldUse `json:"fields,omitempty"`
	// Repetitions is each run of the case under --repeat, in order (see
	// repeat.go); PassRate counts them. Absent for a case that ran once.
	Repetitions []Repetition `json:"repetitions,omitempty"`
	PassRate    *PassRate    `json:"passRate,omitempty"`
}

// Cluster describes what the run ran against.
type Cluster struct {
	Provider          string `json:"provider"`
	Topology          string `json:"topology"`
	KubernetesVersion string `json:"kubernetesVersion"`
}

// Features says which optional features the run checked and why: the
// cluster declared them, or the user claimed them (--supported-features).
type Features struct {
	Declared []string `json:"declared,omitempty"`
	Claimed  []string `json:"claimed,omitempty"`
}

// Supported is the union of declared and claimed features.
func (f Features) Supported() map[string]bool {
	out := map[string]bool{}
	for _, n := range f.Declared {
		out[n] = true
	}
	for _, n := range f.Claimed {
		out[n] = true
	}
	return out
}

// Selection is what the run was asked to run.
type Selection struct {
	Suites      []string `json:"suites,omitempty"`
	Profiles    []string `json:"profiles,omitempty"`
	LabelFilter string   `json:"labelFilter,omitempty"`
	Focus       []string `json:"focus,omitempty"`
	Skip        []string `json:"skip,omitempty"`
}

// Summary counts spec cases by state: a run's (results.json) and a
// profile's (report.yaml's statistics).
type Summary struct {
	Total        int `json:"total"`
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	Skipped      int `json:"skipped"`
	NotSupported int `json:"notSupported"`
	// Flaky counts the cases that passed in some repetitions and failed in
	// others (--repeat); absent when none did.
	Flaky int `json:"flaky,omitempty"`
}

// Results is the content of results.json.
type Results struct {
	APIVersion     string    `json:"apiVersion"`
	Kind           string    `json:"kind"`
	HarnessVersion string    `json:"harnessVersion"`
	Cluster        Cluster   `json:"cluster"`
	Features       Features  `json:"features"`
	Selection      Selection `json:"selection"`
	// Repeat is how the run repeated its cases (--repeat); absent when
	// every case ran once.
	Repeat     *Repeat   `json:"repeat,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	Summary    Summary   `json:"summary"`
	Specs      []Spec    `json:"specs"`
	// Coverage is the field coverage of the admission API the cases
	// recorded; absent when none recorded any (older harnesses, runs of
	// node specs only).
	Coverage *Coverage `json:"coverage,omitempty"`
	// CodeCoverage is the statement coverage of the implementation's
	// admission code by this run; only a coverage build's run has it
	// (make coverage adds it).
	CodeCoverage *CodeCoverage `json:"codeCoverage,omitempty"`
}

// Summarize recounts Summary from Specs, and Coverage with cover from the
// cases' field use. The inventory coverage is measured against is the
// engine's (internal/contract/fields.Cover, whose fields depend on the
// pinned Kubernetes), so the caller hands it in; nil leaves Coverage out.
func (r *Results) Summarize(cover func(uses map[string][]FieldUse) Coverage) {
	r.Coverage = nil
	uses := map[string][]FieldUse{}
	for _, spec := range r.Specs {
		if spec.Fields != nil {
			uses[spec.ShortName] = append(uses[spec.ShortName], *spec.Fields)
		}
	}
	if len(uses) > 0 && cover != nil {
		c := cover(uses)
		r.Coverage = &c
	}
	s := Summary{}
	for _, spec := range r.Specs {
		s.Add(spec.State)
	}
	r.Summary = s
}

// Add counts one case in state.
func (s *Summary) Add(state State) {
	s.Total++
	switch state {
	case Passed:
		s.Passed++
	case Failed:
		s.Failed++
	case Skipped:
		s.Skipped++
	case NotSupported:
		s.NotSupported++
	case Flaky:
		s.Flaky++
	}
}

// Write writes results.json into dir, creating dir. The results of a run
// with --repeat are written as APIVersionRepeated.
func Write(dir string, r Results) (string, error) {
	if r.Repeat != nil && r.APIVersion == APIVersion {
		r.APIVersion = APIVersionRepeated
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName)
	return path, os.WriteFile(path, append(data, '\n'), 0o644)
}

// Read reads a results.json file.
func Read(path string) (Results, error) {
	var r Results
	data, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s is not a results.json: %w", path, err)
	}
	if !KnownAPIVersion(r.APIVersion) || r.Kind != Kind {
		return r, fmt.Errorf("%s is %s/%s, want %s/%s", path, r.APIVersion, r.Kind, APIVersion, Kind)
	}
	return r, nil
}
