package exemption

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

func hook(name string, ops []admissionregistrationv1.OperationType, groups, resources []string) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{Name: name, Rules: []admissionregistrationv1.RuleWithOperations{{
		Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"*"}, Resources: resources},
	}}}
}

func TestStampOnlyTouchesHooksThatMatchPodUpdates(t *testing.T) {
	update := []admissionregistrationv1.OperationType{admissionregistrationv1.Update}
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{
		hook("pods-update", update, []string{""}, []string{"pods"}),
		hook("all", all, []string{"*"}, []string{"*"}),
		hook("pod-status", update, []string{""}, []string{"pods/status"}),
		hook("any-status", update, []string{""}, []string{"*/status"}),
		hook("pods-create", create, []string{""}, []string{"pods"}),
		hook("configmaps", update, []string{""}, []string{"configmaps"}),
		hook("apps", update, []string{"apps"}, []string{"*"}),
	}}
	if !Stamp(cfg) {
		t.Fatal("nothing stamped")
	}
	want := map[string]bool{"pods-update": true, "all": true, "pod-status": true, "any-status": true}
	for _, w := range cfg.Webhooks {
		if hasExemption(w.MatchConditions) != want[w.Name] {
			t.Errorf("%s: stamped %t, want %t", w.Name, hasExemption(w.MatchConditions), want[w.Name])
		}
	}
	if Stamp(cfg) {
		t.Error("a second stamp changed something")
	}
	cfg.Webhooks[0].MatchConditions = append(cfg.Webhooks[0].MatchConditions, admissionregistrationv1.MatchCondition{Name: "theirs", Expression: "true"})
	if !Unstamp(cfg) {
		t.Fatal("nothing unstamped")
	}
	for _, w := range cfg.Webhooks {
		if hasExemption(w.MatchConditions) {
			t.Errorf("%s still has the exemption", w.Name)
		}
	}
	if got := cfg.Webhooks[0].MatchConditions; len(got) != 1 || got[0].Name != "theirs" {
		t.Errorf("someone else's condition was touched: %+v", got)
	}
}

func TestStampRespectsTheLimit(t *testing.T) {
	h := hook("full", []admissionregistrationv1.OperationType{admissionregistrationv1.Update}, []string{""}, []string{"pods"})
	for i := 0; i < maxMatchConditions; i++ {
		h.MatchConditions = append(h.MatchConditions, admissionregistrationv1.MatchCondition{Name: string(rune('a' + i%26)), Expression: "true"})
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{h}}
	if Stamp(cfg) || len(cfg.Webhooks[0].MatchConditions) != maxMatchConditions {
		t.Error("stamped past the apiserver's limit")
	}
}

func TestExpressionNamesTheLabel(t *testing.T) {
	if want := "'" + v1alpha1.InitializingLabel + "' in oldObject.metadata.labels"; !strings.Contains(Expression, want) {
		t.Errorf("expression %q does not test %q", Expression, want)
	}
}
