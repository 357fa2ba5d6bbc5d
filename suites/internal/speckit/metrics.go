package speckit

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/metrics"
)

// Metric names the observability specs read (k8s.io/apiserver v0.37.2
// pkg/admission/metrics, plugin/policy/{validating,mutating}/metrics).
const (
	WebhookRequests     = "apiserver_admission_webhook_request_total"
	WebhookDuration     = "apiserver_admission_webhook_admission_duration_seconds"
	WebhookRejections   = "apiserver_admission_webhook_rejection_count"
	WebhookFailOpen     = "apiserver_admission_webhook_fail_open_count"
	ConditionExclusions = "apiserver_admission_match_condition_exclusions_total"
	ConditionErrors     = "apiserver_admission_match_condition_evaluation_errors_total"
	ConditionSeconds    = "apiserver_admission_match_condition_evaluation_seconds"
	StepDuration        = "apiserver_admission_step_admission_duration_seconds"
	StepSummary         = "apiserver_admission_step_admission_duration_seconds_summary"
	PluginDuration      = "apiserver_admission_controller_admission_duration_seconds"
	VAPChecks           = "apiserver_validating_admission_policy_check_total"
	VAPCheckDuration    = "apiserver_validating_admission_policy_check_duration_seconds"
	MAPChecks           = "apiserver_mutating_admission_policy_check_total"
	MAPCheckDuration    = "apiserver_mutating_admission_policy_check_duration_seconds"
)

// MetricPoint is one series: a counter's or gauge's value, or a histogram's or
// summary's count, sum and (histograms) cumulative bucket counts.
type MetricPoint struct {
	Labels  map[string]string
	Value   float64
	Sum     float64
	Buckets map[float64]float64
}

// MetricSnapshot holds every series of some metrics: metric -> label key -> MetricPoint.
type MetricSnapshot map[string]map[string]*MetricPoint

// LabelKey is a series' labels, sorted, as k=v pairs joined by commas.
func LabelKey(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ",")
}

// scrapeMetrics reads the named metrics from every apiserver, summing series with
// the same labels.
func scrapeMetrics(ctx context.Context, f *harness.Framework, names ...string) (MetricSnapshot, error) {
	out := MetricSnapshot{}
	for _, n := range names {
		out[n] = map[string]*MetricPoint{}
	}
	for i, c := range cluster.MetricsConfigs(f.Env.Cluster) {
		families, err := metrics.Scrape(ctx, c, names...)
		if err != nil {
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		for _, n := range names {
			for _, m := range families[n].GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				key := LabelKey(labels)
				p, ok := out[n][key]
				if !ok {
					p = &MetricPoint{Labels: labels, Buckets: map[float64]float64{}}
					out[n][key] = p
				}
				switch {
				case m.Counter != nil:
					p.Value += m.Counter.GetValue()
				case m.Gauge != nil:
					p.Value += m.Gauge.GetValue()
				case m.Untyped != nil:
					p.Value += m.Untyped.GetValue()
				case m.Histogram != nil:
					p.Value += float64(m.Histogram.GetSampleCount())
					p.Sum += m.Histogram.GetSampleSum()
					for _, b := range m.Histogram.GetBucket() {
						p.Buckets[b.GetUpperBound()] += float64(b.GetCumulativeCount())
					}
				case m.Summary != nil:
					p.Value += float64(m.Summary.GetSampleCount())
					p.Sum += m.Summary.GetSampleSum()
				}
			}
		}
	}
	return out, nil
}

// MustScrapeMetrics is scrape for specs.
func MustScrapeMetrics(ctx context.Context, f *harness.Framework, names ...string) MetricSnapshot {
	s, err := scrapeMetrics(ctx, f, names...)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return s
}

// hasLabelsOf reports whether labels include every pair of selector.
func hasLabelsOf(labels, selector map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// Moved returns, for every series of metric whose labels include selector,
// how much of measure moved since before: only the series that moved, by
// label key. normalize, if set, rewrites a series' labels first.
func (after MetricSnapshot) Moved(before MetricSnapshot, metric string, selector map[string]string, measure func(*MetricPoint) float64,
	normalize func(map[string]string) map[string]string) map[string]float64 {
	out := map[string]float64{}
	for _, p := range after[metric] {
		if !hasLabelsOf(p.Labels, selector) {
			continue
		}
		d := measure(p)
		if b, ok := before[metric][LabelKey(p.Labels)]; ok {
			d -= measure(b)
		}
		if d == 0 {
			continue
		}
		labels := p.Labels
		if normalize != nil {
			labels = normalize(maps.Clone(labels))
		}
		out[LabelKey(labels)] += d
	}
	return out
}

func CountOf(p *MetricPoint) float64 { return p.Value }

// Deltas builds an expected delta map from label sets and counts.
type Deltas map[string]float64

func (w Deltas) Add(n float64, labels map[string]string) Deltas {
	w[LabelKey(labels)] += n
	return w
}

// LabelSets returns the label sets of w.
func (w Deltas) LabelSets() []map[string]string {
	var out []map[string]string
	for _, k := range slices.Sorted(maps.Keys(w)) {
		labels := map[string]string{}
		for _, kv := range strings.Split(k, ",") {
			if name, value, ok := strings.Cut(kv, "="); ok {
				labels[name] = value
			}
		}
		out = append(out, labels)
	}
	return out
}

// ExpectMoved asserts that exactly the wanted series of metric (among
// those whose labels include selector) moved, each by exactly its count.
func ExpectMoved(before, after MetricSnapshot, metric string, selector map[string]string, w Deltas, why string) {
	CheckMoved(before, after, metric, selector, CountOf, nil, w, why)
}

func CheckMoved(before, after MetricSnapshot, metric string, selector map[string]string, measure func(*MetricPoint) float64,
	normalize func(map[string]string) map[string]string, w Deltas, why string) {
	got, expected := describeDeltas(after.Moved(before, metric, selector, measure, normalize)), describeDeltas(w)
	gomega.ExpectWithOffset(2, got).To(gomega.Equal(expected),
		"%s{%s}: exactly these series must move, each by exactly this much: %s\nmoved:\n%s\nexpected:\n%s",
		metric, LabelKey(selector), why, got, expected)
}

// describeDeltas renders a delta map in a stable, readable order.
func describeDeltas(m map[string]float64) string {
	keys := slices.Sorted(maps.Keys(m))
	lines := make([]string, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		if v == math.Trunc(v) {
			lines = append(lines, fmt.Sprintf("{%s} +%d", k, int64(v)))
		} else {
			lines = append(lines, fmt.Sprintf("{%s} +%g", k, v))
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "(nothing moved)"
	}
	return strings.Join(lines, "\n")
}

// Lbl builds a label set from alternating names and values.
func Lbl(kv ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
