package runner

import (
	"io"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Plan lists every case and what sel does with it, without a cluster and
// without running anything (Ginkgo's dry run, with the same filters Run
// applies): the cases sel selects come back passed, the others skipped as
// not selected, in the order Ginkgo would run them. Like Run, it can be
// called once per process, and not together with Run.
func Plan(t ginkgo.GinkgoTestingT, sel Selection) []results.Spec {
	var final types.Report
	ginkgo.ReportAfterSuite("plan", func(r ginkgo.Report) { final = r })
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.DryRun = true
	suiteConfig.LabelFilter = AndFilters(suiteConfig.LabelFilter, sel.labelFilter())
	suiteConfig.FocusStrings = append(suiteConfig.FocusStrings, sel.Focus...)
	suiteConfig.SkipStrings = append(suiteConfig.SkipStrings, sel.Skip...)
	reporterConfig.Succinct, reporterConfig.NoColor, reporterConfig.SilenceSkips = true, true, true
	saved := formatter.ColorableStdOut
	formatter.ColorableStdOut = io.Discard
	defer func() { formatter.ColorableStdOut = saved }()
	ginkgo.RunSpecs(t, SuiteDescription, suiteConfig, reporterConfig)
	return results.FromGinkgo(final)
}

// Selected reports whether a case Plan listed is selected.
func Selected(s results.Spec) bool { return s.State == results.Passed }
