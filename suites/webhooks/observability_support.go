package webhooks

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/metrics"
)

// The observability specs assert metrics by deltas: a metricSnapshot of every
// series of the metrics they read, before and after the case's requests,
// summed over the apiservers (cluster.MetricsConfigs). Series are selected
// by a label naming the case's own webhook or policy, so specs running at
// the same time never move them; only the step metrics, which name nothing
// of the case, need the case to run alone.

// Metric names the observability specs read (k8s.io/apiserver v0.37.2
// pkg/admission/metrics, plugin/policy/{validating,mutating}/metrics).
const (
	webhookRequests     = "apiserver_admission_webhook_request_total"
	webhookDuration     = "apiserver_admission_webhook_admission_duration_seconds"
	webhookRejections   = "apiserver_admission_webhook_rejection_count"
	webhookFailOpen     = "apiserver_admission_webhook_fail_open_count"
	conditionExclusions = "apiserver_admission_match_condition_exclusions_total"
	conditionErrors     = "apiserver_admission_match_condition_evaluation_errors_total"
	conditionSeconds    = "apiserver_admission_match_condition_evaluation_seconds"
	stepDuration        = "apiserver_admission_step_admission_duration_seconds"
	stepSummary         = "apiserver_admission_step_admission_duration_seconds_summary"
	pluginDuration      = "apiserver_admission_controller_admission_duration_seconds"
	vapChecks           = "apiserver_validating_admission_policy_check_total"
	vapCheckDuration    = "apiserver_validating_admission_policy_check_duration_seconds"
	mapChecks           = "apiserver_mutating_admission_policy_check_total"
	mapCheckDuration    = "apiserver_mutating_admission_policy_check_duration_seconds"
)

// routeLabel routes a case's requests to one of its webhooks (each hook's
// objectSelector names one route), so one configuration serves several
// requests that must reach different hooks.
const routeLabel = "admission-conformance.io/route"

func routed(route string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{routeLabel: route}}
}

// routedConfigMap is a ConfigMap in the spec's namespace on route, with data.
func routedConfigMap(f *harness.Framework, name, route string, data map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace, Labels: map[string]string{}}, Data: data}
	if route != "" {
		cm.Labels[routeLabel] = route
	}
	return cm
}

// metricPoint is one series: a counter's or gauge's value, or a histogram's or
// summary's count, sum and (histograms) cumulative bucket counts.
type metricPoint struct {
	labels  map[string]string
	value   float64
	sum     float64
	buckets map[float64]float64
}

// metricSnapshot holds every series of some metrics: metric -> label key -> metricPoint.
type metricSnapshot map[string]map[string]*metricPoint

// labelKey is a series' labels, sorted, as k=v pairs joined by commas.
func labelKey(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return strings.Join(parts, ",")
}

// scrapeMetrics reads the named metrics from every apiserver, summing series with
// the same labels.
func scrapeMetrics(ctx context.Context, f *harness.Framework, names ...string) (metricSnapshot, error) {
	out := metricSnapshot{}
	for _, n := range names {
		out[n] = map[string]*metricPoint{}
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
				key := labelKey(labels)
				p, ok := out[n][key]
				if !ok {
					p = &metricPoint{labels: labels, buckets: map[float64]float64{}}
					out[n][key] = p
				}
				switch {
				case m.Counter != nil:
					p.value += m.Counter.GetValue()
				case m.Gauge != nil:
					p.value += m.Gauge.GetValue()
				case m.Untyped != nil:
					p.value += m.Untyped.GetValue()
				case m.Histogram != nil:
					p.value += float64(m.Histogram.GetSampleCount())
					p.sum += m.Histogram.GetSampleSum()
					for _, b := range m.Histogram.GetBucket() {
						p.buckets[b.GetUpperBound()] += float64(b.GetCumulativeCount())
					}
				case m.Summary != nil:
					p.value += float64(m.Summary.GetSampleCount())
					p.sum += m.Summary.GetSampleSum()
				}
			}
		}
	}
	return out, nil
}

// mustScrapeMetrics is scrape for specs.
func mustScrapeMetrics(ctx context.Context, f *harness.Framework, names ...string) metricSnapshot {
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

// moved returns, for every series of metric whose labels include selector,
// how much of measure moved since before: only the series that moved, by
// label key. normalize, if set, rewrites a series' labels first.
func (after metricSnapshot) moved(before metricSnapshot, metric string, selector map[string]string, measure func(*metricPoint) float64,
	normalize func(map[string]string) map[string]string) map[string]float64 {
	out := map[string]float64{}
	for _, p := range after[metric] {
		if !hasLabelsOf(p.labels, selector) {
			continue
		}
		d := measure(p)
		if b, ok := before[metric][labelKey(p.labels)]; ok {
			d -= measure(b)
		}
		if d == 0 {
			continue
		}
		labels := p.labels
		if normalize != nil {
			labels = normalize(maps.Clone(labels))
		}
		out[labelKey(labels)] += d
	}
	return out
}

func countOf(p *metricPoint) float64 { return p.value }

// samplesAtOrBelow measures a histogram's samples no greater than le.
func samplesAtOrBelow(le float64) func(*metricPoint) float64 {
	return func(p *metricPoint) float64 { return p.buckets[le] }
}

// samplesAbove measures a histogram's samples greater than le.
func samplesAbove(le float64) func(*metricPoint) float64 {
	return func(p *metricPoint) float64 { return p.value - p.buckets[le] }
}

func sumOf(p *metricPoint) float64 { return p.sum }

// deltas builds an expected delta map from label sets and counts.
type deltas map[string]float64

func (w deltas) add(n float64, labels map[string]string) deltas {
	w[labelKey(labels)] += n
	return w
}

// labelSets returns the label sets of w.
func (w deltas) labelSets() []map[string]string {
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

// expectMoved asserts that exactly the wanted series of metric (among
// those whose labels include selector) moved, each by exactly its count.
func expectMoved(before, after metricSnapshot, metric string, selector map[string]string, w deltas, why string) {
	checkMoved(before, after, metric, selector, countOf, nil, w, why)
}

// expectMovedBy is expectMoved for another measure of the series (a
// histogram's buckets, a sum), with labels normalized first if normalize
// is set.
func expectMovedBy(before, after metricSnapshot, metric string, selector map[string]string, measure func(*metricPoint) float64,
	normalize func(map[string]string) map[string]string, w deltas, why string) {
	checkMoved(before, after, metric, selector, measure, normalize, w, why)
}

func checkMoved(before, after metricSnapshot, metric string, selector map[string]string, measure func(*metricPoint) float64,
	normalize func(map[string]string) map[string]string, w deltas, why string) {
	got, expected := describeDeltas(after.moved(before, metric, selector, measure, normalize)), describeDeltas(w)
	gomega.ExpectWithOffset(2, got).To(gomega.Equal(expected),
		"%s{%s}: exactly these series must move, each by exactly this much: %s\nmoved:\n%s\nexpected:\n%s",
		metric, labelKey(selector), why, got, expected)
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

// lbl builds a label set from alternating names and values.
func lbl(kv ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}
