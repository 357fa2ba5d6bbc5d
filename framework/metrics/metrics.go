// Package metrics reads counters from the apiservers' /metrics endpoints.
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
		families, err := scrape(ctx, c)
		if err != nil {
			return 0, fmt.Errorf("replica %d: %w", i, err)
		}
		if fam, ok := families[name]; ok {
			total += sumMatching(fam, want)
		}
	}
	return total, nil
}

func scrape(ctx context.Context, c *rest.Config) (map[string]*dto.MetricFamily, error) {
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, err
	}
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("scrape /metrics: %w", err)
	}
	return Parse(raw)
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
		families, err := scrape(ctx, c)
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
