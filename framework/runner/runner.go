// Package runner runs the registered Ginkgo specs in-process against an
// environment and turns the outcome into results. The CLI and each suite's
// go test both go through it, so they run the same specs the same way.
package runner

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

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
	// Progress gets one line per finished spec case.
	Progress io.Writer
	// Version is the harness version recorded in the results.
	Version string
	// Plain makes Ginkgo's own output succinct and colourless (the CLI);
	// go test keeps whatever Ginkgo's flags say.
	Plain bool
}

// Run runs the selected specs against env. t is the *testing.T under go
// test, or a stand-in from the CLI. It can be called once per process, as
// Ginkgo's RunSpecs can.
func Run(t ginkgo.GinkgoTestingT, env *harness.Env, opts Options) results.Results {
	harness.Use(env)
	out := results.Results{
		APIVersion:     results.APIVersion,
		Kind:           results.Kind,
		HarnessVersion: opts.Version,
		Cluster: results.Cluster{
			Provider:          env.Cluster.Provider(),
			Topology:          env.Cluster.Topology(),
			KubernetesVersion: env.KubernetesVersion,
		},
		StartedAt: time.Now().UTC(),
	}
	progress := newProgress(opts.Progress)
	var final types.Report
	ginkgo.ReportBeforeSuite(func(r ginkgo.Report) { progress.begin(r.PreRunStats.SpecsThatWillRun) })
	ginkgo.ReportAfterEach(func(r ginkgo.SpecReport) { progress.done(r) })
	ginkgo.ReportAfterSuite("results", func(r ginkgo.Report) { final = r })

	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	if opts.Plain {
		// One line per spec comes from progress; Ginkgo adds the details of
		// failures at the end, without colour codes.
		reporterConfig.Succinct, reporterConfig.NoColor, reporterConfig.SilenceSkips = true, true, true
	}
	suiteConfig.LabelFilter = combine(suiteConfig.LabelFilter, opts.Selection.labelFilter())
	suiteConfig.FocusStrings = append(suiteConfig.FocusStrings, opts.Selection.Focus...)
	suiteConfig.SkipStrings = append(suiteConfig.SkipStrings, opts.Selection.Skip...)
	ginkgo.RunSpecs(t, "admission-conformance", suiteConfig, reporterConfig)

	out.FinishedAt = time.Now().UTC()
	out.Specs = results.FromGinkgo(final)
	out.Summarize()
	return out
}

func combine(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	default:
		return "(" + a + ") && (" + b + ")"
	}
}

// progress prints one line per finished case: [done/total] STATE name (time).
type progress struct {
	w     io.Writer
	total int
	n     int
	start time.Time
}

func newProgress(w io.Writer) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{w: w}
}

func (p *progress) begin(total int) {
	p.total, p.start = total, time.Now()
	fmt.Fprintf(p.w, "\nrunning %d spec case(s)\n", total)
}

func (p *progress) done(r ginkgo.SpecReport) {
	s := results.FromSpecReport(r)
	if s.State == results.Skipped && r.State == types.SpecStateSkipped && r.Failure.Message == "" {
		return // filtered out, never started
	}
	p.n++
	name := s.ShortName
	if name == "" {
		name = r.FullText()
	}
	line := fmt.Sprintf("[%d/%d] %-13s %s/%s (%.1fs, %s elapsed)", p.n, p.total, strings.ToUpper(string(s.State)),
		s.Suite, name, s.Duration, time.Since(p.start).Round(time.Second))
	if s.State != results.Passed && s.Message != "" {
		line += "\n    " + firstLine(s.Message)
	}
	fmt.Fprintln(p.w, line)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
