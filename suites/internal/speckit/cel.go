package speckit

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// Heavy checks that every item of data.items, a comma-separated list, is
// in the list: its runtime cost grows with the square of the list's
// length (each of n contains calls traverses the whole string). Policies
// and webhooks are created whatever their expressions' estimated cost (the
// pinned validation compiles them and checks no estimate), so only the
// runtime limits apply. With celItems, 10 items cost 146 and 1000 items
// 797,582 (under the 1,000,000 per-expression limit; 3 fit in
// matchConditions' 2,500,000 budget and 12 in a binding's 10,000,000, one
// more does not); 5000 items exceed the per-expression limit. The costs
// are the same on 1.35, 1.36 and 1.37.
const Heavy = "object.data.items.split(',').all(x, object.data.items.contains(x))"

const (
	SmallItems = 10
	MidItems   = 1000
	BigItems   = 5000
)

// celItems is "item0,item1,...": n items for heavy.
func celItems(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("item%d", i)
	}
	return strings.Join(items, ",")
}

// ItemsConfigMap is a ConfigMap heavy reads, with verdict v.
func ItemsConfigMap(f *harness.Framework, name string, n int, v string) *corev1.ConfigMap {
	return ConfigMap(f, name, map[string]string{"items": celItems(n), "verdict": v})
}

// The errors the pinned apiserver gives (k8s.io/apiserver v0.37.2
// pkg/admission/plugin/cel/activation.go, cel-go v0.29.2 interpreter/runtimecost.go).
const (
	CostLimitExceeded = "operation cancelled: actual cost limit exceeded"
	BudgetExceeded    = "validation failed due to running out of cost budget, no further validation rules will be run"
	// ErroringCondition errors on objects without data.absent.
	ErroringCondition = "object.data['absent'] == 'x'"
)

func ExpressionError(expression, err string) string {
	return fmt.Sprintf("expression '%s' resulted in error: %s", expression, err)
}
