// Package runner runs the registered Ginkgo specs in-process against an
// environment and turns the outcome into results. The CLI and each suite's
// go test both go through it, so they run the same specs the same way.
package runner

import (
	"io"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/lateness"
)

// SuiteDescription is what Run and Plan name the Ginkgo suite. Ginkgo
// matches focus and skip expressions against it and a case's full name,
// joined by a space.
const SuiteDescription = "admission-conformance"

// Selection says which specs run.
type Selection struct {
	Suites   []string
	Profiles []spec.Profile
	// LabelFilter is a Ginkgo label filter ANDed with the above.
	LabelFilter string
	Focus       []string
	Skip        []string
}

// labelFilter turns the selection into one Ginkgo label filter.
func (s Selection) labelFilter() string {
	var parts []string
	if len(s.Suites) > 0 {
		parts = append(parts, "("+joinLabels("suite:", s.Suites)+")")
	}
	if len(s.Profiles) > 0 {
		profiles := make([]string, len(s.Profiles))
		for i, p := range s.Profiles {
			profiles[i] = string(p)
		}
		parts = append(parts, "("+joinLabels("profile:", profiles)+")")
	}
	if s.LabelFilter != "" {
		parts = append(parts, "("+s.LabelFilter+")")
	}
	return strings.Join(parts, " && ")
}

func joinLabels(prefix string, values []string) string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = prefix + v
	}
	return strings.Join(out, " || ")
}

// Options configure a run.
type Options struct {
	Selection Selection
	// Progress gets one plain line per finished spec case.
	Progress io.Writer
	// Live, when set (a terminal), gets a status line redrawn in place:
	// done/total, counts by state, the case running now, elapsed time.
	// Cases that did not pass are also printed there as lines.
	Live io.Writer
	// LiveWidth returns the terminal's width, to keep the live line on one
	// row; nil or 0 means unknown.
	LiveWidth func() int
	// GinkgoOutput, when set, is where Ginkgo's own reporter writes (its
	// failure details) instead of the process's stdout.
	GinkgoOutput io.Writer
	// Version is the harness version recorded in the results.
	Version string
	// Plain makes Ginkgo's own output succinct and colourless (the CLI);
	// go test keeps whatever Ginkgo's flags say.
	Plain bool
	// Lateness configures the monitor of the harness's own wake-ups; the
	// zero value is the real clock (tests inject a sleeper that stalls).
	Lateness lateness.Options
}

// Run runs the selected specs against env. t is the *testing.T under go
// test, or a stand-in from the CLI. It can be called once per process, as
// Ginkgo's RunSpecs can.
func Run(t ginkgo.GinkgoTestingT, env *harness.Env, opts Options) results.Results {
	harness.Use(env)
	out := NewResults(env, opts)
	// A failure then says whether the harness itself was starved.
	mon := startLateness(env.Bounds, opts.Lateness)
	defer mon.Stop()
	progress := newProgress(opts.Progress, opts.Live, opts.LiveWidth)
	var final types.Report
	ginkgo.ReportBeforeSuite(func(r ginkgo.Report) { progress.begin(r.PreRunStats.SpecsThatWillRun) })
	ginkgo.ReportBeforeEach(func(r ginkgo.SpecReport) { progress.started(r) })
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) { recordHarnessDelay(mon, r) })
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) { progress.done(r) })
	if cc := newCaseCoverage(); cc != nil {
		ginkgo.ReportBeforeEach(cc.before)
		ginkgo.ReportAfterEach(cc.after)
	}
	ginkgo.ReportAfterSuite("results", func(r ginkgo.Report) { final = r })

	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	if opts.Plain {
		// One line per spec comes from progress; Ginkgo adds the details of
		// failures at the end, without colour codes.
		reporterConfig.Succinct, reporterConfig.NoColor, reporterConfig.SilenceSkips = true, true, true
	}
	suiteConfig.LabelFilter = AndFilters(suiteConfig.LabelFilter, opts.Selection.labelFilter())
	suiteConfig.FocusStrings = append(suiteConfig.FocusStrings, opts.Selection.Focus...)
	suiteConfig.SkipStrings = append(suiteConfig.SkipStrings, opts.Selection.Skip...)
	if opts.GinkgoOutput != nil || opts.Plain {
		// Ginkgo's reporter writes to this package variable; runs happen
		// once per process, so pointing it elsewhere for the run is safe.
		saved := formatter.ColorableStdOut
		w := opts.GinkgoOutput
		if w == nil {
			w = saved
		}
		if opts.Plain {
			w = dropDenoters{w}
		}
		formatter.ColorableStdOut = w
		defer func() { formatter.ColorableStdOut = saved }()
	}
	ginkgo.RunSpecs(t, SuiteDescription, suiteConfig, reporterConfig)
	progress.end()

	out.FinishedAt = time.Now().UTC()
	out.Specs = results.FromGinkgo(final)
	results.NoteStarvation(out.Specs, env.Bounds.HarnessStarved.Duration)
	out.Summarize(fields.Cover)
	return out
}

// NewResults is the results of a run against env as it starts: what ran
// against what, and no cases yet.
func NewResults(env *harness.Env, opts Options) results.Results {
	return results.Results{
		APIVersion:     results.APIVersion,
		Kind:           results.Kind,
		HarnessVersion: opts.Version,
		Cluster: results.Cluster{
			Provider:          env.Cluster.Provider(),
			Topology:          env.Cluster.Topology(),
			KubernetesVersion: env.KubernetesVersion,
		},
		Features:  featuresOf(env),
		Selection: opts.Selection.record(),
		StartedAt: time.Now().UTC(),
	}
}

// dropDenoters drops the "•" Ginkgo's succinct reporter writes for every
// passing spec: progress already prints a line per case, and the dot would
// land at the start of the next one.
type dropDenoters struct{ w io.Writer }

func (d dropDenoters) Write(p []byte) (int, error) {
	if string(p) == "•" {
		return len(p), nil
	}
	return d.w.Write(p)
}

// record is the selection as results.json keeps it.
func (s Selection) record() results.Selection {
	profiles := make([]string, len(s.Profiles))
	for i, p := range s.Profiles {
		profiles[i] = string(p)
	}
	return results.Selection{Suites: s.Suites, Profiles: profiles, LabelFilter: s.LabelFilter, Focus: s.Focus, Skip: s.Skip}
}

// featuresOf records which optional features the cluster declared and which
// the user claimed on top.
func featuresOf(env *harness.Env) results.Features {
	declared := env.Cluster.Capabilities().Union(env.Installed)
	var out results.Features
	for _, n := range declared.Sorted() {
		out.Declared = append(out.Declared, string(n))
	}
	for _, n := range env.Supported.Sorted() {
		if !declared.Has(n) {
			out.Claimed = append(out.Claimed, string(n))
		}
	}
	return out
}

// AndFilters joins two Ginkgo label filters that must both hold.
func AndFilters(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	default:
		return "(" + a + ") && (" + b + ")"
	}
}
