package observability

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// The observability specs assert metrics by deltas: a speckit.MetricSnapshot of every
// series of the metrics they read, before and after the case's requests,
// summed over the apiservers (cluster.MetricsConfigs). Series are selected
// by a label naming the case's own webhook or policy, so specs running at
// the same time never move them; only the step metrics, which name nothing
// of the case, need the case to run alone.

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

// samplesAtOrBelow measures a histogram's samples no greater than le.
func samplesAtOrBelow(le float64) func(*speckit.MetricPoint) float64 {
	return func(p *speckit.MetricPoint) float64 { return p.Buckets[le] }
}

// samplesAbove measures a histogram's samples greater than le.
func samplesAbove(le float64) func(*speckit.MetricPoint) float64 {
	return func(p *speckit.MetricPoint) float64 { return p.Value - p.Buckets[le] }
}

func sumOf(p *speckit.MetricPoint) float64 { return p.Sum }

// expectMovedBy is speckit.ExpectMoved for another measure of the series (a
// histogram's buckets, a sum), with labels normalized first if normalize
// is set.
func expectMovedBy(before, after speckit.MetricSnapshot, metric string, selector map[string]string, measure func(*speckit.MetricPoint) float64,
	normalize func(map[string]string) map[string]string, w speckit.Deltas, why string) {
	speckit.CheckMoved(before, after, metric, selector, measure, normalize, w, why)
}
