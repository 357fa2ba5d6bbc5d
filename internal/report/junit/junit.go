// Package junit writes results as JUnit XML (junit.xml), the format CI
// systems read: one testsuite per suite, one testcase per spec case, with
// failures carrying their message and not-supported cases reported as
// skipped with the reason (never as passed). A flaky case (run --repeat:
// passed in some repetitions, failed in others) is a failure of type
// "flaky" with its pass rate and every repetition's outcome.
package junit

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// FileName is junit.xml.
const FileName = "junit.xml"

// TestSuites is the document root.
type TestSuites struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     float64     `xml:"time,attr"`
	Suites   []TestSuite `xml:"testsuite"`
}

// TestSuite is one suite of specs.
type TestSuite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Errors     int        `xml:"errors,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Time       float64    `xml:"time,attr"`
	Timestamp  string     `xml:"timestamp,attr,omitempty"`
	Properties []Property `xml:"properties>property,omitempty"`
	Cases      []TestCase `xml:"testcase"`
}

// Property is a name/value pair.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// TestCase is one spec case.
type TestCase struct {
	Name       string     `xml:"name,attr"`
	Classname  string     `xml:"classname,attr"`
	Time       float64    `xml:"time,attr"`
	Status     string     `xml:"status,attr"`
	Properties []Property `xml:"properties>property,omitempty"`
	Failure    *Message   `xml:"failure,omitempty"`
	Skipped    *Message   `xml:"skipped,omitempty"`
	SystemOut  string     `xml:"system-out,omitempty"`
}

// Message is a failure or skip: a one-line message and the full text.
type Message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// FromResults converts results. Suites appear in the order the results
// first name them.
func FromResults(res results.Results) TestSuites {
	doc := TestSuites{Name: "admission-conformance"}
	index := map[string]int{}
	for _, s := range res.Specs {
		i, ok := index[s.Suite]
		if !ok {
			i = len(doc.Suites)
			index[s.Suite] = i
			doc.Suites = append(doc.Suites, TestSuite{Name: s.Suite, Timestamp: res.StartedAt.UTC().Format("2006-01-02T15:04:05")})
		}
		suite := &doc.Suites[i]
		c := testCase(s)
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
		suite.Time += s.Duration
		switch {
		case c.Failure != nil:
			suite.Failures++
		case c.Skipped != nil:
			suite.Skipped++
		}
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Properties = []Property{
			{Name: "harnessVersion", Value: res.HarnessVersion},
			{Name: "kubernetesVersion", Value: res.Cluster.KubernetesVersion},
			{Name: "provider", Value: res.Cluster.Provider},
			{Name: "topology", Value: res.Cluster.Topology},
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
		doc.Time += s.Time
	}
	return doc
}

func testCase(s results.Spec) TestCase {
	c := TestCase{
		Name:      s.Name,
		Classname: s.Suite + "." + s.ShortName,
		Time:      s.Duration,
		Status:    string(s.State),
	}
	passRate := ""
	if s.PassRate != nil {
		passRate = s.PassRate.String()
	}
	for _, p := range []Property{{"profile", s.Profile}, {"features", strings.Join(s.Features, ",")}, {"seed", s.Seed}, {"passRate", passRate}} {
		if p.Value != "" {
			c.Properties = append(c.Properties, p)
		}
	}
	switch s.State {
	case results.Passed:
	case results.Skipped, results.NotSupported:
		c.Skipped = &Message{Message: string(s.State) + ": " + firstLine(s.Message)}
	default:
		text := s.Message
		if s.Location != "" {
			text += "\n\nat " + s.Location
		}
		if s.Journal != nil {
			text += "\n\n" + s.Journal.Text()
		}
		if len(s.Repetitions) > 0 {
			text += "\n\n" + repetitionsText(s.Repetitions)
		}
		kind := "failed"
		if s.State == results.Flaky {
			kind = string(results.Flaky)
		}
		c.Failure = &Message{Message: firstLine(s.Message), Type: kind, Text: text}
	}
	c.SystemOut = measurementsText(s.Measurements)
	return c
}

// repetitionsText is one line per repetition: its state and, for one
// that did not pass, its message's first line.
func repetitionsText(reps []results.Repetition) string {
	lines := make([]string, len(reps))
	for i, r := range reps {
		lines[i] = fmt.Sprintf("repetition %d: %s (%.1fs)", r.Index, r.State, r.Duration)
		if r.State != results.Passed && r.Message != "" {
			lines[i] += ": " + firstLine(r.Message)
		}
	}
	return strings.Join(lines, "\n")
}

func measurementsText(ms []results.Measurement) string {
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = m.String()
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// Write writes junit.xml into dir and returns its path.
func Write(dir string, res results.Results) (string, error) {
	data, err := xml.MarshalIndent(FromResults(res), "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName)
	return path, os.WriteFile(path, append([]byte(xml.Header), append(data, '\n')...), 0o644)
}
