// Package matrix is the one model of runs laid side by side, with its
// versioned JSON (matrix.json, kind MatrixResults), its text form and its
// self-contained page (matrix.html). Three producers write it: the matrix
// command (one run per target cluster, each with its own report dir),
// compare --matrix (N results.json files) and hack/versions (one run per
// Kubernetes version). Each column is a target: its state and exit code,
// every spec case's state, every measurement with its bounds; rows whose
// targets disagree are marked, and cells that regressed since a previous
// run of the same target are outlined. It reads only results.json files:
// no cluster.
package matrix

import (
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
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
	// Error: the target could not be reached, set up or built, or gave no
	// results (exit 2).
	Error TargetState = "error"
)

// Exit codes of a matrix.
const (
	ExitPassed = 0
	ExitFailed = 1
	ExitError  = 2
)

// Matrix is the content of matrix.json.
type Matrix struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Title says what is laid side by side (the page's heading).
	Title          string `json:"title,omitempty"`
	HarnessVersion string `json:"harnessVersion,omitempty"`
	// StartedAt and FinishedAt bound the making of the matrix: the targets'
	// runs for the matrix command and hack/versions, the reading of the
	// results for compare --matrix.
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// RunFlags are the flags every target's run was given (hack/versions).
	RunFlags []string `json:"runFlags,omitempty"`
	// Thresholds decide when measurements differ between targets and when
	// one regressed against the previous run.
	Thresholds compare.Thresholds `json:"thresholds"`
	// Previous says whether an earlier matrix run was compared with.
	Previous bool     `json:"comparedWithPrevious"`
	Targets  []Target `json:"targets"`
	// Cases are the spec cases of every target, in suite order, but for
	// those no target's selection held (NotSelected counts them).
	Cases        []Case           `json:"cases"`
	NotSelected  int              `json:"notSelectedCases,omitempty"`
	Measurements []MeasurementRow `json:"measurements"`
	// CasesDiffering and MeasurementsDiffering count the rows marked
	// Differs.
	CasesDiffering        int `json:"casesDiffering"`
	MeasurementsDiffering int `json:"measurementsDiffering"`
	// ExitCode is the matrix's: 2 if a target could not be run, else 1 if a
	// target failed a case, else 0.
	ExitCode int `json:"exitCode"`
}

// Duration is how long the making of the matrix took, or 0 when it has no
// span (compare --matrix reads files).
func (m Matrix) Duration() time.Duration {
	if m.FinishedAt.After(m.StartedAt) {
		return m.FinishedAt.Sub(m.StartedAt)
	}
	return 0
}

// Target is one column: a target's run and its outcome.
type Target struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// PreRelease: the target runs a pre-release of Kubernetes.
	PreRelease bool        `json:"preRelease,omitempty"`
	State      TargetState `json:"state"`
	ExitCode   int         `json:"exitCode"`
	Error      string      `json:"error,omitempty"`
	// DurationSeconds is the target's whole run (with its cluster's set-up
	// for the matrix command; the results' own span when read back).
	DurationSeconds float64 `json:"durationSeconds"`
	// Steps time the steps before and of the run, in their order, when
	// the producer has them (hack/versions: prepare, build, run).
	Steps []Step `json:"steps,omitempty"`
	// ReportDir is the target's report dir, relative to the matrix dir;
	// Source the results.json the target was read from.
	ReportDir         string           `json:"reportDir,omitempty"`
	Source            string           `json:"source,omitempty"`
	Provider          string           `json:"provider,omitempty"`
	Topology          string           `json:"topology,omitempty"`
	KubernetesVersion string           `json:"kubernetesVersion,omitempty"`
	HarnessVersion    string           `json:"harnessVersion,omitempty"`
	StartedAt         *time.Time       `json:"startedAt,omitempty"`
	Result            report.Result    `json:"result,omitempty"`
	Profiles          []Profile        `json:"profiles,omitempty"`
	Summary           *results.Summary `json:"summary,omitempty"`
	// Regressions counts this target's regressed cells (cases and
	// measurements) against the previous run.
	Regressions int `json:"regressions"`
	// WasRun says the previous matrix run had results for this target.
	WasRun bool `json:"previouslyRun"`
}

// Step is one timed step of a target's run; 0 seconds: not done.
type Step struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// HasResults says the target's run gave results: it has cells.
func (t Target) HasResults() bool { return t.Summary != nil }

// Profile is one profile's result on a target.
type Profile struct {
	Name       string          `json:"name"`
	Result     report.Result   `json:"result"`
	Statistics results.Summary `json:"statistics"`
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
	// Differs: the targets with results do not all give the case one
	// state (absent counts as a state).
	Differs bool `json:"differs,omitempty"`
}

// Key is the case as internal/report/compare names it: suite/name.
func (c Case) Key() string { return c.Suite + "/" + c.Name }

// Cell is a case on a target.
type Cell struct {
	State results.State `json:"state"`
	// Message is the first line of the reason the case did not pass.
	Message string `json:"message,omitempty"`
	// Regressed: passed before and not now, or failed now and not before.
	Regressed bool          `json:"regressed,omitempty"`
	Previous  results.State `json:"previous,omitempty"`
}

// MeasurementRow is one measurement of one case, side by side on the
// targets. Repeats of a name and labels within a case are numbered.
type MeasurementRow struct {
	Case       string `json:"case"`
	Name       string `json:"name"`
	Labels     string `json:"labels,omitempty"`
	Occurrence int    `json:"occurrence"`
	// Unit, Bound and Lower are those of the first target with a value.
	Unit   string           `json:"unit"`
	Bound  *float64         `json:"bound,omitempty"`
	Lower  *float64         `json:"lower,omitempty"`
	Values map[string]Value `json:"values"`
	// Differs: the targets with results disagree beyond noise
	// (compare.Thresholds.Disagreement); Reason says how.
	Differs bool   `json:"differs,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Value is a measurement's value on a target.
type Value struct {
	Value  float64  `json:"value"`
	Unit   string   `json:"unit"`
	Bound  *float64 `json:"bound,omitempty"`
	Lower  *float64 `json:"lower,omitempty"`
	Within bool     `json:"within"`
	// Regressed: grew beyond the thresholds or left its bounds since the
	// previous run (internal/report/compare).
	Regressed bool    `json:"regressed,omitempty"`
	Previous  float64 `json:"previous,omitempty"`
}
