// Package metrics reads the counters and gauges of every apiserver
// replica's /metrics endpoint, so a spec can check that admission counted
// what its request did (a webhook that failed open, a static configuration
// reloaded). The counters are cumulative and the whole run shares them, so
// a spec compares a Sum taken before its request with one taken after.
package metrics

import (
	"bytes"
	"context"
	"fmt"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Sum returns the sum of the counter or gauge called name over every series
// whose labels include want, across every config (one per apiserver
// replica). A metric no replica exposes yet sums to 0.
func Sum(ctx context.Context, configs []*rest.Config, name string, want map[string]string) (float64, error) {
	var total float64
	for i, c := range configs {
		families, err := Scrape(ctx, c, name)
		if err != nil {
			return 0, fmt.Errorf("replica %d: %w", i, err)
		}
		if fam, ok := families[name]; ok {
			total += sumMatching(fam, want)
		}
	}
	return total, nil
}

// Scrape reads the families called names from one apiserver's /metrics.
// Only their lines are parsed: an apiserver exposes thousands of series and
// specs poll a few, so parsing everything is most of a poll's cost.
func Scrape(ctx context.Context, c *rest.Config, names ...string) (map[string]*dto.MetricFamily, error) {
	c = rest.CopyConfig(c)
	// Uncompressed: the apiserver is local, and gzip costs it more CPU than
	// the bytes cost the loopback.
	c.DisableCompression = true
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, err
	}
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("scrape /metrics: %w", err)
	}
	return Parse(Only(raw, names...))
}

// Parse reads the Prometheus text format.
func Parse(raw []byte) (map[string]*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse /metrics: %w", err)
	}
	return families, nil
}

// Only keeps the lines of the families called names from text in the
// Prometheus text format as client_golang writes it: each family a block
// that starts with its # HELP or # TYPE line, its samples after it (a
// histogram's _bucket, _sum and _count lines included).
func Only(raw []byte, names ...string) []byte {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out bytes.Buffer
	keep := false
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i+1], raw[i+1:]
		} else {
			raw = nil
		}
		if name, ok := familyOf(line); ok {
			keep = want[name]
		}
		if keep {
			out.Write(line)
		}
	}
	return out.Bytes()
}

// familyOf returns the family a # HELP or # TYPE line starts.
func familyOf(line []byte) (string, bool) {
	for _, prefix := range [][]byte{[]byte("# HELP "), []byte("# TYPE ")} {
		if rest, ok := bytes.CutPrefix(line, prefix); ok {
			name, _, _ := bytes.Cut(rest, []byte(" "))
			return string(bytes.TrimSpace(name)), true
		}
	}
	return "", false
}

func sumMatching(fam *dto.MetricFamily, want map[string]string) float64 {
	var total float64
	for _, m := range fam.GetMetric() {
		if !hasLabels(m, want) {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Untyped != nil:
			total += m.Untyped.GetValue()
		}
	}
	return total
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// Sample is one series of a metric: its labels and value.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Series returns every series of the metric called name whose labels include
// want, from every config (one per apiserver replica, or one where the
// replicas share their metrics: cluster.MetricsConfigs).
func Series(ctx context.Context, configs []*rest.Config, name string, want map[string]string) ([]Sample, error) {
	var out []Sample
	for i, c := range configs {
		families, err := Scrape(ctx, c, name)
		if err != nil {
			return nil, fmt.Errorf("replica %d: %w", i, err)
		}
		for _, m := range families[name].GetMetric() {
			if !hasLabels(m, want) {
				continue
			}
			s := Sample{Labels: map[string]string{}}
			for _, l := range m.GetLabel() {
				s.Labels[l.GetName()] = l.GetValue()
			}
			switch {
			case m.Counter != nil:
				s.Value = m.Counter.GetValue()
			case m.Gauge != nil:
				s.Value = m.Gauge.GetValue()
			case m.Untyped != nil:
				s.Value = m.Untyped.GetValue()
			}
			out = append(out, s)
		}
	}
	return out, nil
}
