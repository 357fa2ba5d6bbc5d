package webhook

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

func config(name string, inits ...v1alpha1.Initializer) v1alpha1.InitializerConfiguration {
	c := v1alpha1.InitializerConfiguration{Initializers: inits}
	c.Name = name
	return c
}

func init1(name string, rules ...v1alpha1.Rule) v1alpha1.Initializer {
	return v1alpha1.Initializer{Name: name, Rules: rules}
}

func rule(group, version, resource string) v1alpha1.Rule {
	return v1alpha1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}}
}

func planNames(plan []v1alpha1.Assigned) []string {
	out := make([]string, len(plan))
	for i, a := range plan {
		out[i] = a.Name
	}
	return out
}

func TestPlanSortsConfigurationsByNameAndKeepsOrderWithinOne(t *testing.T) {
	pods := rule("", "v1", "pods")
	configs := []v1alpha1.InitializerConfiguration{
		config("b", init1("x/b1", pods)),
		config("a", init1("x/a2", pods), init1("x/a1", pods)),
		config("c", init1("x/a2", pods), init1("x/c1", pods)),
	}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	if got, want := planNames(Plan(configs, podsGVR, ByName)), []string{"x/a2", "x/a1", "x/b1", "x/c1"}; !slices.Equal(got, want) {
		t.Errorf("by name: %v, want %v", got, want)
	}
	if got, want := planNames(Plan(configs, podsGVR, ReverseByName)), []string{"x/a2", "x/c1", "x/b1", "x/a1"}; !slices.Equal(got, want) {
		t.Errorf("reversed: %v, want %v", got, want)
	}
}

func TestPlanMatchesAnyRuleAndWildcards(t *testing.T) {
	configs := []v1alpha1.InitializerConfiguration{config("a",
		init1("x/second-rule", rule("apps", "v1", "deployments"), rule("*", "*", "*")),
		init1("x/all-groups", rule("*", "v1", "pods")),
		init1("x/configmaps", rule("", "v1", "configmaps")),
		init1("x/v2", rule("", "v2", "pods")),
		init1("x/none"),
	)}
	got := planNames(Plan(configs, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, ByName))
	if want := []string{"x/second-rule", "x/all-groups"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

func TestPlanCarriesPolicyAndTimeoutWithDefaults(t *testing.T) {
	pods := rule("", "v1", "pods")
	set := init1("x/set", pods)
	set.FailurePolicy, set.TimeoutSeconds = ptr.To(v1alpha1.Fail), ptr.To[int32](7)
	plan := Plan([]v1alpha1.InitializerConfiguration{config("a", set, init1("x/unset", pods))},
		schema.GroupVersionResource{Version: "v1", Resource: "pods"}, ByName)
	want := []v1alpha1.Assigned{
		{Name: "x/set", FailurePolicy: v1alpha1.Fail, TimeoutSeconds: 7, Configuration: "a"},
		{Name: "x/unset", FailurePolicy: v1alpha1.Ignore, TimeoutSeconds: v1alpha1.DefaultTimeoutSeconds, Configuration: "a"},
	}
	if !slices.Equal(plan, want) {
		t.Errorf("%+v, want %+v", plan, want)
	}
}
