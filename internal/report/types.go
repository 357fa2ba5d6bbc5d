// Package report is the ConformanceReport: the versioned YAML document a
// vendor submits unmodified (report.yaml). It says who was tested
// (implementation), with what (harness and Kubernetes versions, cluster),
// and how each profile fared, with the reason for every spec case that did
// not pass and every measurement with its bounds. It is built from
// results.json, so every report can be rebuilt from the results.
package report

import (
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// APIVersion and Kind identify the format; a change that breaks readers
// bumps the version.
const (
	APIVersion = "admission-conformance.io/v1alpha1"
	Kind       = "ConformanceReport"
	FileName   = "report.yaml"
)

// Result is the outcome of a profile or of the whole run.
type Result string

const (
	// Success: every spec case of the profile that applies ran and passed.
	Success Result = "success"
	// Partial: nothing failed, but something that should have run did not
	// (a skipped case; for the core profile also a not-supported one).
	Partial Result = "partial"
	// Failure: at least one case failed, or was flaky (passed in some
	// repetitions of --repeat and failed in others): never a pass.
	Failure Result = "failure"
	// NotRun: no case of the profile ran.
	NotRun Result = "not-run"
)

// Results lists the valid results.
var Results = []Result{Success, Partial, Failure, NotRun}

// ConformanceReport is the content of report.yaml.
type ConformanceReport struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Date is when the run finished.
	Date time.Time `json:"date"`
	// Implementation is what was tested, when the user stated it.
	Implementation *Implementation `json:"implementation,omitempty"`
	// HarnessVersion is run-conformance's version.
	HarnessVersion    string  `json:"harnessVersion"`
	KubernetesVersion string  `json:"kubernetesVersion"`
	Cluster           Cluster `json:"cluster"`
	// Result sums up the profiles: failure if any failed, success only if
	// core succeeded and no profile is partial, partial otherwise.
	Result   Result    `json:"result"`
	Profiles []Profile `json:"profiles"`
	// HarnessFailures are failures outside any spec (suite set-up and
	// tear-down); any makes the result a failure.
	HarnessFailures []Outcome     `json:"harnessFailures,omitempty"`
	Measurements    []Measurement `json:"measurements,omitempty"`
}

// Implementation identifies the tested implementation.
type Implementation struct {
	Organization string `json:"organization"`
	Project      string `json:"project"`
	URL          string `json:"url"`
	Version      string `json:"version"`
	// Contact lists people or teams to ask about the report (GitHub
	// handles, e-mail addresses, URLs).
	Contact []string `json:"contact,omitempty"`
}

// Cluster is what the run ran against.
type Cluster struct {
	Provider string `json:"provider"`
	Topology string `json:"topology"`
}

// Profile is one profile's outcome.
type Profile struct {
	// Name is core, extended or reference.
	Name       string          `json:"name"`
	Result     Result          `json:"result"`
	Statistics results.Summary `json:"statistics"`
	// SupportedFeatures are the optional features this profile's specs
	// need that the cluster declared or the user claimed;
	// UnsupportedFeatures are the others.
	SupportedFeatures   []string `json:"supportedFeatures,omitempty"`
	UnsupportedFeatures []string `json:"unsupportedFeatures,omitempty"`
	// Failed, Skipped and NotSupported list the cases in those states with
	// the reason.
	Failed       []Outcome `json:"failed,omitempty"`
	Skipped      []Outcome `json:"skipped,omitempty"`
	NotSupported []Outcome `json:"notSupported,omitempty"`
	// Flaky lists the cases that passed in some repetitions and failed in
	// others (run --repeat), with their pass rate.
	Flaky []Outcome `json:"flaky,omitempty"`
}

// Outcome is a spec case that did not pass, and why.
type Outcome struct {
	Suite     string `json:"suite"`
	ShortName string `json:"shortName"`
	// Name is the case's full name.
	Name   string `json:"name"`
	Reason string `json:"reason"`
	// Location is where a failure was raised.
	Location string `json:"location,omitempty"`
	// PassRate is how often a repeated case passed (run --repeat).
	PassRate *results.PassRate `json:"passRate,omitempty"`
}

// Measurement is one measured value of a case, with its bounds.
type Measurement struct {
	// Spec is suite/ShortName; Case is the case's full name.
	Spec   string            `json:"spec"`
	Case   string            `json:"case"`
	Name   string            `json:"name"`
	Value  float64           `json:"value"`
	Unit   string            `json:"unit"`
	Bound  *float64          `json:"bound,omitempty"`
	Lower  *float64          `json:"lower,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	// Within says whether the value respects its bounds.
	Within bool `json:"within"`
}
