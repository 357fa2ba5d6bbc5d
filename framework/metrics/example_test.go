package metrics_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/metrics"
)

// A spec reads a counter from the apiservers' /metrics (Sum and Series
// scrape every replica); Parse reads one scrape's text.
func ExampleParse() {
	raw := []byte(`# HELP apiserver_admission_webhook_rejection_count Admission webhook rejection count.
# TYPE apiserver_admission_webhook_rejection_count counter
apiserver_admission_webhook_rejection_count{name="forbidden.acme.example",operation="CREATE",type="validating"} 3
`)
	families, err := metrics.Parse(raw)
	if err != nil {
		panic(err)
	}
	f := families["apiserver_admission_webhook_rejection_count"]
	fmt.Println(len(f.GetMetric()), f.GetMetric()[0].GetCounter().GetValue())
	// Output: 1 3
}
