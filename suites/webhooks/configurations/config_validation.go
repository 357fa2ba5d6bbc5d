package configurations

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookConfigurationValidation = spec.Spec{
	ShortName: "WebhookConfigurationValidation",
	Suite:     "webhooks",
	Description: "Mutating and validating webhook configurations that break an admissionregistration.k8s.io/v1 rule " +
		"(timeout range, '*' alone, resource wildcards, operations, sideEffects, review versions, names, client config, " +
		"matchConditions, selectors, enumerations) are refused with 422 Invalid naming the offending field, and " +
		"well-formed ones, the limits included, are accepted.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.WebhookMatchConditions},
	Profile:  spec.Core,
	Seed: "002 Specification: if '*' is present, the length of the slice must be one; Name should be fully qualified " +
		"(and admissionregistration.k8s.io/v1 MutatingWebhook and ValidatingWebhook field validation)",
}

// configCase is one webhook configuration the apiserver must refuse (field
// set) or accept (field empty).
type configCase struct {
	name string
	// hooks edits the configuration's webhooks, given one valid webhook.
	hooks func(valid admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook
	// reinvocation, when set, is every mutating webhook's reinvocationPolicy;
	// the case then applies to mutating configurations only.
	reinvocation *admissionregistrationv1.ReinvocationPolicyType
	// field is the path the refusal must name, detail a part of its message;
	// a field ending in "." names any field under that path.
	field, detail string
}

// editHook is a configuration of the valid webhook changed by edit.
func editHook(edit func(h *admissionregistrationv1.ValidatingWebhook)) func(admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
	return func(h admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
		edit(&h)
		return []admissionregistrationv1.ValidatingWebhook{h}
	}
}

func withResources(resources ...string) func(*admissionregistrationv1.ValidatingWebhook) {
	return func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].Resources = resources }
}

func withURL(url string) func(*admissionregistrationv1.ValidatingWebhook) {
	return func(h *admissionregistrationv1.ValidatingWebhook) { h.ClientConfig.URL = ptr.To(url) }
}

func withConditions(n int) func(*admissionregistrationv1.ValidatingWebhook) {
	return func(h *admissionregistrationv1.ValidatingWebhook) {
		h.MatchConditions = nil
		for i := range n {
			h.MatchConditions = append(h.MatchConditions, admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", i), Expression: "true"})
		}
	}
}

func withCondition(conditions ...admissionregistrationv1.MatchCondition) func(*admissionregistrationv1.ValidatingWebhook) {
	return func(h *admissionregistrationv1.ValidatingWebhook) { h.MatchConditions = conditions }
}

var webhookConfigCases = []configCase{
	// Accepted: a vendor that refuses everything fails these.
	{name: "a minimal webhook", hooks: editHook(func(*admissionregistrationv1.ValidatingWebhook) {})},
	{name: "timeoutSeconds 1, the lower limit", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.TimeoutSeconds = ptr.To[int32](1) })},
	{name: "timeoutSeconds 30, the upper limit", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.TimeoutSeconds = ptr.To[int32](30) })},
	{name: "resources pods/*, every subresource of pods", hooks: editHook(withResources("pods/*"))},
	{name: "resources */*, alone", hooks: editHook(withResources("*/*"))},
	// Seed 002 wants '*' alone, but v1 lets '*' (resources without
	// subresources) stand with subresources, which it does not cover.
	{name: "resources * with a subresource (pods/status), which * does not cover", hooks: editHook(withResources("*", "pods/status"))},
	{name: "operations *, alone", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	})},
	{name: "sideEffects NoneOnDryRun", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.SideEffects = ptr.To(admissionregistrationv1.SideEffectClassNoneOnDryRun)
	})},
	{name: "admissionReviewVersions with an unknown version besides v1", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.AdmissionReviewVersions = []string{"v0", "v1"}
	})},
	{name: "a service reference with namespace and name", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.ClientConfig.URL = nil
		h.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "webhook", Path: ptr.To("/validate")}
	})},
	{name: "64 matchConditions, the limit", hooks: editHook(withConditions(64))},
	{name: "reinvocationPolicy IfNeeded", reinvocation: ptr.To(admissionregistrationv1.IfNeededReinvocationPolicy),
		hooks: editHook(func(*admissionregistrationv1.ValidatingWebhook) {})},

	// Refused.
	{name: "timeoutSeconds 0", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.TimeoutSeconds = ptr.To[int32](0) }),
		field: "webhooks[0].timeoutSeconds", detail: "between 1 and 30 seconds"},
	{name: "timeoutSeconds 31", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.TimeoutSeconds = ptr.To[int32](31) }),
		field: "webhooks[0].timeoutSeconds", detail: "between 1 and 30 seconds"},
	{name: "apiGroups * with another group", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].APIGroups = []string{"*", "apps"} }),
		field: "webhooks[0].rules[0].apiGroups", detail: "if '*' is present"},
	{name: "apiVersions * with another version", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].APIVersions = []string{"*", "v1"} }),
		field: "webhooks[0].rules[0].apiVersions", detail: "if '*' is present"},
	// Not a case: kube-apiserver v1.36.3 accepts ["configmaps", "*"] (the
	// same two entries the other way round), because its check remembers
	// only whether the last entry lacks a subresource. That breaks seed 002's
	// rule, but a spec must pass against upstream.
	{name: "resources * with another resource", hooks: editHook(withResources("*", "configmaps")),
		field: "webhooks[0].rules[0].resources", detail: "if '*' is present"},
	{name: "resources */* with another resource", hooks: editHook(withResources("*/*", "configmaps")),
		field: "webhooks[0].rules[0].resources", detail: "if '*/*' is present"},
	{name: "resources pods/* with pods/status, which it covers", hooks: editHook(withResources("pods/*", "pods/status")),
		field: "webhooks[0].rules[0].resources[1]", detail: "if 'pods/*' is present"},
	{name: "resources */status with pods/status, which it covers", hooks: editHook(withResources("*/status", "pods/status")),
		field: "webhooks[0].rules[0].resources[1]", detail: "if '*/status' is present"},
	{name: "operations * with another operation", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.Rules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll, admissionregistrationv1.Create}
	}), field: "webhooks[0].rules[0].operations", detail: "if '*' is present"},
	{name: "an unknown operation", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.Rules[0].Operations = []admissionregistrationv1.OperationType{"PATCH"}
	}), field: "webhooks[0].rules[0].operations[0]", detail: "Unsupported value"},
	{name: "an unknown rule scope", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.Rules[0].Scope = ptr.To[admissionregistrationv1.ScopeType]("Global")
	}), field: "webhooks[0].rules[0].scope", detail: "Unsupported value"},
	{name: "sideEffects unset", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.SideEffects = nil }),
		field: "webhooks[0].sideEffects", detail: "Required value"},
	{name: "sideEffects Unknown", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.SideEffects = ptr.To(admissionregistrationv1.SideEffectClassUnknown)
	}), field: "webhooks[0].sideEffects", detail: "Unsupported value"},
	{name: "sideEffects Some", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.SideEffects = ptr.To(admissionregistrationv1.SideEffectClassSome)
	}), field: "webhooks[0].sideEffects", detail: "Unsupported value"},
	{name: "admissionReviewVersions empty", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.AdmissionReviewVersions = nil }),
		field: "webhooks[0].admissionReviewVersions", detail: "Required value"},
	{name: "admissionReviewVersions with no version the apiserver speaks", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.AdmissionReviewVersions = []string{"v0"}
	}), field: "webhooks[0].admissionReviewVersions", detail: "must include at least one of v1, v1beta1"},
	{name: "a webhook name that is not fully qualified", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Name = "nodots" }),
		field: "webhooks[0].name", detail: "at least three segments"},
	{name: "two webhooks with the same name", hooks: func(h admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
		return []admissionregistrationv1.ValidatingWebhook{h, *h.DeepCopy()}
	}, field: "webhooks[1].name", detail: "Duplicate value"},
	{name: "clientConfig with both url and service", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "webhook"}
	}), field: "webhooks[0].clientConfig", detail: "exactly one of url or service is required"},
	{name: "clientConfig with neither url nor service", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.ClientConfig.URL = nil }),
		field: "webhooks[0].clientConfig", detail: "exactly one of url or service is required"},
	{name: "a url that is not https", hooks: editHook(withURL("http://webhook.admission-conformance.invalid/validate")),
		field: "webhooks[0].clientConfig.url", detail: "'https' is the only allowed URL scheme"},
	{name: "a url with a fragment", hooks: editHook(withURL("https://webhook.admission-conformance.invalid/validate#part")),
		field: "webhooks[0].clientConfig.url", detail: "fragments are not permitted"},
	{name: "a url with a query", hooks: editHook(withURL("https://webhook.admission-conformance.invalid/validate?x=y")),
		field: "webhooks[0].clientConfig.url", detail: "query parameters are not permitted"},
	// kube-apiserver v1.36.3 names the wrong one of the two fields: its
	// validation passes name and namespace to ValidateWebhookService, which
	// takes namespace then name, so a missing namespace is reported as
	// service.name and a missing name as service.namespace. The contract is
	// the refusal under clientConfig.service; either path is accepted.
	{name: "a service with no namespace", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.ClientConfig.URL = nil
		h.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Name: "webhook"}
	}), field: "webhooks[0].clientConfig.service.", detail: "Required value"},
	{name: "a service with no name", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.ClientConfig.URL = nil
		h.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "default"}
	}), field: "webhooks[0].clientConfig.service.", detail: "Required value"},
	{name: "65 matchConditions", hooks: editHook(withConditions(65)),
		field: "webhooks[0].matchConditions", detail: "must have at most 64 items"},
	{name: "a matchCondition that does not compile", hooks: editHook(withCondition(admissionregistrationv1.MatchCondition{Name: "c", Expression: "object.metadata.name =="})),
		field: "webhooks[0].matchConditions[0].expression", detail: "compilation failed"},
	{name: "a matchCondition that is not a bool", hooks: editHook(withCondition(admissionregistrationv1.MatchCondition{Name: "c", Expression: "'a string'"})),
		field: "webhooks[0].matchConditions[0].expression", detail: "must evaluate to bool"},
	{name: "two matchConditions with the same name", hooks: editHook(withCondition(
		admissionregistrationv1.MatchCondition{Name: "c", Expression: "true"}, admissionregistrationv1.MatchCondition{Name: "c", Expression: "true"})),
		field: "webhooks[0].matchConditions[1].name", detail: "Duplicate value"},
	{name: "a namespaceSelector with an invalid operator", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Within", Values: []string{"v"}}}}
	}), field: "webhooks[0].namespaceSelector.matchExpressions[0].operator", detail: "not a valid selector operator"},
	{name: "an objectSelector with an invalid label value", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"k": "not a label value"}}
	}), field: "webhooks[0].objectSelector.matchLabels", detail: "Invalid value"},
	{name: "an objectSelector with an invalid label value in matchExpressions", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"not a label value"}}}}
	}), field: "webhooks[0].objectSelector.matchExpressions[0].values[0]", detail: "Invalid value"},
	{name: "an unknown reinvocationPolicy", reinvocation: ptr.To[admissionregistrationv1.ReinvocationPolicyType]("Sometimes"),
		hooks: editHook(func(*admissionregistrationv1.ValidatingWebhook) {}), field: "webhooks[0].reinvocationPolicy", detail: "Unsupported value"},
	{name: "an unknown matchPolicy", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.MatchPolicy = ptr.To[admissionregistrationv1.MatchPolicyType]("Fuzzy")
	}), field: "webhooks[0].matchPolicy", detail: "Unsupported value"},
	// Seed 002 excluded Retry "to expose the flakiness of an admission controller".
	{name: "failurePolicy Retry", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.FailurePolicy = ptr.To[admissionregistrationv1.FailurePolicyType]("Retry")
	}), field: "webhooks[0].failurePolicy", detail: "Unsupported value"},
	// Every part of a rule is required, and none may be empty (make
	// coverage found these branches never run).
	{name: "a rule without apiGroups", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].APIGroups = nil }),
		field: "webhooks[0].rules[0].apiGroups", detail: "Required value"},
	{name: "a rule without apiVersions", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].APIVersions = nil }),
		field: "webhooks[0].rules[0].apiVersions", detail: "Required value"},
	{name: "a rule with an empty apiVersion", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].APIVersions = []string{""} }),
		field: "webhooks[0].rules[0].apiVersions[0]", detail: "Required value"},
	{name: "a rule without resources", hooks: editHook(withResources()), field: "webhooks[0].rules[0].resources", detail: "Required value"},
	{name: "a rule with an empty resource", hooks: editHook(withResources("")), field: "webhooks[0].rules[0].resources[0]", detail: "Required value"},
	{name: "a rule without operations", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].Operations = nil }),
		field: "webhooks[0].rules[0].operations", detail: "Required value"},
	{name: "admissionReviewVersions listing v1 twice", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.AdmissionReviewVersions = []string{"v1", "v1"}
	}), field: "webhooks[0].admissionReviewVersions[1]", detail: "duplicate version"},
	{name: "admissionReviewVersions with a version that is not a DNS-1035 label", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) {
		h.AdmissionReviewVersions = []string{"V1", "v1"}
	}), field: "webhooks[0].admissionReviewVersions[0]", detail: "a DNS-1035 label"},
	// Accepted: several groups, the core group among them, without '*'.
	{name: "apiGroups with the core group and another", hooks: editHook(func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules[0].APIGroups = []string{"", "apps"} })},
}

var _ = harness.Describe(webhookConfigurationValidation, func(f *harness.Framework) {
	// valid is a webhook every rule accepts. Cases are created as dry runs:
	// validation runs, nothing is stored, nothing is ever called.
	valid := func() admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    "valid." + f.Namespace + ".admission-conformance.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://webhook.admission-conformance.invalid/validate")},
			Rules:                   speckit.ConfigMapRules(),
			NamespaceSelector:       inNamespace(f),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}
	}

	ginkgo.It("a dry-run create of a valid configuration is accepted and stores nothing", func(ctx ginkgo.SpecContext) {
		for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
			name := f.Namespace + "-dry-run"
			gomega.Expect(dryRunConfig(ctx, f, phase, name, []admissionregistrationv1.ValidatingWebhook{valid()}, nil)).To(gomega.Succeed(),
				"a valid %s configuration must be accepted", phase)
			var err error
			if phase == fakewebhook.Mutating {
				_, err = f.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
			} else {
				_, err = f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
			}
			gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a dry-run create of a %s configuration must store nothing, got %v", phase, err)
		}
	})

	// stored is a webhook a stored configuration may hold: it matches no
	// object (an objectSelector on a label nobody sets) and fails open.
	stored := func() admissionregistrationv1.ValidatingWebhook {
		hook := valid()
		hook.FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
		hook.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"admission-conformance.io/never-set": "true"}}
		return hook
	}
	sideEffects := func(class admissionregistrationv1.SideEffectClass) func([]admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
		return func(hooks []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
			hooks[0].SideEffects = &class
			return hooks
		}
	}

	ginkgo.It("an update giving sideEffects Some or Unknown to a configuration whose webhooks have none: refused naming webhooks[0].sideEffects", func(ctx ginkgo.SpecContext) {
		// The rule admissionregistration.k8s.io/v1 keeps on update: sideEffects
		// Some and Unknown stay allowed only in configurations that already
		// had them (stored through v1beta1); one whose webhooks all declare
		// None may not gain them.
		for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
			update, err := createForUpdate(ctx, f, phase, f.Namespace+"-side-effects", stored())
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create a %s configuration with sideEffects None", phase)
			for _, class := range []admissionregistrationv1.SideEffectClass{admissionregistrationv1.SideEffectClassSome, admissionregistrationv1.SideEffectClassUnknown} {
				expectRefusedNaming(update(ctx, sideEffects(class)), fmt.Sprintf("an update of a %s configuration to sideEffects %s", phase, class),
					"webhooks[0].sideEffects", "Unsupported value")
			}
			gomega.Expect(update(ctx, sideEffects(admissionregistrationv1.SideEffectClassNoneOnDryRun))).To(gomega.Succeed(),
				"an update of a %s configuration to sideEffects NoneOnDryRun must be accepted", phase)
		}
	})

	// refusedUpdates are the rules an update of a configuration that
	// keeps them may not break: each update edits the stored webhooks
	// (a dry run) and must be refused naming the field.
	type refusedUpdate struct {
		what          string
		edit          func([]admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook
		field, detail string
	}
	brokenCondition := []admissionregistrationv1.MatchCondition{{Name: "broken", Expression: "object.metadata.name =="}}
	invalidValue := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"not a label value"}}}}
	for _, tc := range []struct {
		name    string
		updates []refusedUpdate
	}{
		// Unrecognized versions alone stay allowed only in configurations
		// that already had them; one whose webhooks all name a version the
		// apiserver speaks may not lose it.
		{"an update leaving a webhook no admissionReviewVersion the apiserver speaks: refused naming webhooks[0].admissionReviewVersions",
			[]refusedUpdate{{"to admissionReviewVersions [v0]", func(hooks []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
				hooks[0].AdmissionReviewVersions = []string{"v0"}
				return hooks
			}, "webhooks[0].admissionReviewVersions", "must include at least one of v1, v1beta1"}}},
		// Invalid values in matchExpressions stay allowed only in
		// configurations that already had one; a configuration whose
		// selectors are all valid may not gain one, in either selector.
		{"an update giving a selector's matchExpressions an invalid label value: refused naming the value", []refusedUpdate{
			{"giving its namespaceSelector an invalid value", func(hooks []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
				hooks[0].NamespaceSelector = invalidValue
				return hooks
			}, "webhooks[0].namespaceSelector.matchExpressions[0].values[0]", "Invalid value"},
			{"giving its objectSelector an invalid value", func(hooks []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
				hooks[0].ObjectSelector = invalidValue
				return hooks
			}, "webhooks[0].objectSelector.matchExpressions[0].values[0]", "Invalid value"},
		}},
		// The apiserver skips compiling matchConditions on update only when
		// no webhook's changed: changing one, or adding a webhook, changes
		// them.
		{"an update changing a webhook's matchCondition to one that does not compile: refused naming webhooks[0].matchConditions[0].expression",
			[]refusedUpdate{{"changing a webhook's matchCondition to a broken one", func(hooks []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
				hooks[0].MatchConditions = brokenCondition
				return hooks
			}, "webhooks[0].matchConditions[0].expression", "compilation failed"}}},
		{"an update adding a webhook whose matchCondition does not compile: refused naming webhooks[1].matchConditions[0].expression",
			[]refusedUpdate{{"adding a webhook with a broken matchCondition", func(hooks []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook {
				added := stored()
				added.Name = "added." + f.Namespace + ".admission-conformance.io"
				added.MatchConditions = brokenCondition
				return append(hooks, added)
			}, "webhooks[1].matchConditions[0].expression", "compilation failed"}}},
	} {
		ginkgo.It(tc.name, func(ctx ginkgo.SpecContext) {
			for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
				update, err := createForUpdate(ctx, f, phase, f.Namespace+"-update", stored())
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "create a %s configuration", phase)
				for _, u := range tc.updates {
					expectRefusedNaming(update(ctx, u.edit), fmt.Sprintf("an update of a %s configuration %s", phase, u.what), u.field, u.detail)
				}
			}
		})
	}

	for _, tc := range webhookConfigCases {
		verdict := "refused naming " + tc.field
		if tc.field == "" {
			verdict = "accepted"
		}
		ginkgo.It(tc.name+": "+verdict, func(ctx ginkgo.SpecContext) {
			phases := []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating}
			if tc.reinvocation != nil {
				phases = phases[:1]
			}
			for _, phase := range phases {
				err := dryRunConfig(ctx, f, phase, f.Namespace+"-case", tc.hooks(valid()), tc.reinvocation)
				if tc.field == "" {
					gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a %s configuration with %s must be accepted", phase, tc.name)
				} else {
					expectRefusedNaming(err, fmt.Sprintf("a %s configuration with %s", phase, tc.name), tc.field, tc.detail)
				}
			}
		})
	}
})

// createForUpdate creates a configuration of phase holding hook, deleted
// when the spec ends, and returns a dry-run update replacing its webhooks
// by what edit makes of them.
func createForUpdate(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase, name string,
	hook admissionregistrationv1.ValidatingWebhook) (func(context.Context, func([]admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook) error, error) {
	ar := f.Client.AdmissionregistrationV1()
	meta := metav1.ObjectMeta{Name: name, Labels: f.Labels()}
	dryRun := metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}
	hooks := []admissionregistrationv1.ValidatingWebhook{hook}
	if phase == fakewebhook.Mutating {
		c, err := ar.MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: meta,
			Webhooks: mutatingHooks(hooks)}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		ginkgo.DeferCleanup(ar.MutatingWebhookConfigurations().Delete, name, metav1.DeleteOptions{})
		return func(ctx context.Context, edit func([]admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook) error {
			u := c.DeepCopy()
			u.Webhooks = mutatingHooks(edit(append([]admissionregistrationv1.ValidatingWebhook(nil), hooks...)))
			_, err := ar.MutatingWebhookConfigurations().Update(ctx, u, dryRun)
			return err
		}, nil
	}
	c, err := ar.ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: meta,
		Webhooks: hooks}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	ginkgo.DeferCleanup(ar.ValidatingWebhookConfigurations().Delete, name, metav1.DeleteOptions{})
	return func(ctx context.Context, edit func([]admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.ValidatingWebhook) error {
		u := c.DeepCopy()
		u.Webhooks = edit(append([]admissionregistrationv1.ValidatingWebhook(nil), hooks...))
		_, err := ar.ValidatingWebhookConfigurations().Update(ctx, u, dryRun)
		return err
	}, nil
}

// dryRunConfig sends a dry-run create of a configuration of phase holding
// hooks; mutating webhooks get reinvocationPolicy reinvocation.
func dryRunConfig(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase, name string,
	hooks []admissionregistrationv1.ValidatingWebhook, reinvocation *admissionregistrationv1.ReinvocationPolicyType) error {
	ar := f.Client.AdmissionregistrationV1()
	meta := metav1.ObjectMeta{Name: name, Labels: f.Labels()}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	if phase == fakewebhook.Mutating {
		webhooks := mutatingHooks(hooks)
		for i := range webhooks {
			webhooks[i].ReinvocationPolicy = reinvocation
		}
		_, err := ar.MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: webhooks}, dryRun)
		return err
	}
	_, err := ar.ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: meta, Webhooks: hooks}, dryRun)
	return err
}

// expectRefusedNaming asserts err is a 422 Invalid one of whose causes is
// field (or, for a field ending in ".", under it), with detail in its message.
func expectRefusedNaming(err error, what, field, detail string) {
	gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "%s must be refused (%s: %s)", what, field, detail)
	gomega.ExpectWithOffset(1, apierrors.IsInvalid(err)).To(gomega.BeTrue(), "%s must be refused as 422 Invalid, got %v", what, err)
	var status apierrors.APIStatus
	gomega.ExpectWithOffset(1, errors.As(err, &status)).To(gomega.BeTrue(), "a refusal must be a Status, got %T", err)
	var causes []string
	named := false
	if details := status.Status().Details; details != nil {
		for _, c := range details.Causes {
			causes = append(causes, c.Field+": "+c.Message)
			fieldNamed := c.Field == field || (strings.HasSuffix(field, ".") && strings.HasPrefix(c.Field, field))
			named = named || (fieldNamed && strings.Contains(c.Message, detail))
		}
	}
	gomega.ExpectWithOffset(1, named).To(gomega.BeTrue(), "%s must be refused naming field %s (%q); the refusal's causes: %q",
		what, field, detail, causes)
}

var validatingAdmissionPolicyValidation = spec.Spec{
	ShortName: "ValidatingAdmissionPolicyValidation",
	Suite:     "webhooks",
	Description: "ValidatingAdmissionPolicies and bindings that break an admissionregistration.k8s.io/v1 rule (required " +
		"fields, '*' alone in resourceRules, enumerations, paramRef, validationActions) are refused with 422 Invalid " +
		"naming the offending field, and well-formed ones are accepted.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding field validation",
}

var mutatingAdmissionPolicyValidation = spec.Spec{
	ShortName: "MutatingAdmissionPolicyValidation",
	Suite:     "webhooks",
	Description: "MutatingAdmissionPolicies and bindings that break an admissionregistration.k8s.io/v1 rule (required " +
		"fields, enumerations, mutations, operations that cannot be mutated) are refused with 422 Invalid naming the " +
		"offending field, and well-formed ones are accepted.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding field validation",
}

// vapbParamsCase is a binding with a paramRef that must be accepted. Its
// policy exists (paramKind ConfigMap): the apiserver authorizes a paramRef
// against the policy's paramKind, and without a policy it demands list on
// every resource of every group, which only a cluster admin holds; with one
// it asks list on configmaps in the paramRef's namespace (the spec's own).
func vapbParamsCase(name string, edit func(*harness.Framework, *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec)) policyCase {
	return policyCase{kind: "ValidatingAdmissionPolicyBinding", name: name,
		create: func(ctx context.Context, f *harness.Framework) error {
			policies := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
			policy, err := policies.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "case"), Labels: f.Labels()},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
					ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
					FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
					MatchConstraints: speckit.Scoped(f, speckit.PolicyConfigMapRules()),
					Validations:      []admissionregistrationv1.Validation{{Expression: "true", Message: "never fails"}},
				}}, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("create the binding's policy %s: %w", speckit.PolicyName(f, "case"), err)
			}
			ginkgo.DeferCleanup(func(ctx context.Context) error {
				return policies.Delete(ctx, policy.Name, metav1.DeleteOptions{})
			})
			s := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name, ValidationActions: speckit.DenyAction()}
			edit(f, &s)
			return dryRunBinding(ctx, f, s)
		}}
}

func ruleResources(mr *admissionregistrationv1.MatchResources, resources ...string) {
	mr.ResourceRules[0].Resources = resources
}

func ruleOperations(ops ...admissionregistrationv1.OperationType) *admissionregistrationv1.MatchResources {
	mr := speckit.PolicyConfigMapRules()
	mr.ResourceRules[0].Operations = ops
	return mr
}

var anyLabels = &metav1.LabelSelector{MatchLabels: map[string]string{"k": "v"}}

var policyConfigCases = []policyCase{
	// Accepted: a vendor that refuses everything fails these.
	vapCase("a minimal policy", "", "", func(*admissionregistrationv1.ValidatingAdmissionPolicySpec) {}),
	vapbCase("a minimal binding", "", "", func(*admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {}),
	vapbParamsCase("a paramRef by selector with parameterNotFoundAction", func(f *harness.Framework, s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
		s.ParamRef = paramRef("", anyLabels, ptr.To(admissionregistrationv1.AllowAction))
		s.ParamRef.Namespace = f.Namespace
	}),
	mapCase("a minimal policy", "", "", func(*mutatingpolicy.MutatingAdmissionPolicySpec) {}),
	mapbCase("a minimal binding", "", "", func(*mutatingpolicy.MutatingAdmissionPolicyBindingSpec) {}),

	// ValidatingAdmissionPolicy.
	vapCase("a validation with an empty expression", "spec.validations[0].expression", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.Validations[0].Expression = " " }),
	vapCase("a validation message spanning lines", "spec.validations[0].message", "must not contain line breaks",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Message = "one line\nand another"
		}),
	vapCase("neither validations nor auditAnnotations", "spec.validations", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.Validations = nil }),
	vapCase("no matchConstraints", "spec.matchConstraints", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.MatchConstraints = nil }),
	vapCase("matchConstraints without resourceRules", "spec.matchConstraints.resourceRules", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.MatchConstraints.ResourceRules = nil }),
	vapCase("resourceRules with * and another resource", "spec.matchConstraints.resourceRules[0].resources", "if '*' is present",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			ruleResources(s.MatchConstraints, "*", "configmaps")
		}),
	vapCase("resourceRules with * and another API group", "spec.matchConstraints.resourceRules[0].apiGroups", "if '*' is present",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.ResourceRules[0].APIGroups = []string{"*", ""}
		}),
	vapCase("excludeResourceRules with */* and another resource", "spec.matchConstraints.excludeResourceRules[0].resources", "if '*/*' is present",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.ExcludeResourceRules = speckit.PolicyConfigMapRules().ResourceRules
			s.MatchConstraints.ExcludeResourceRules[0].Resources = []string{"*/*", "configmaps"}
		}),
	vapCase("an unknown matchPolicy", "spec.matchConstraints.matchPolicy", "Unsupported value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.MatchPolicy = ptr.To[admissionregistrationv1.MatchPolicyType]("Fuzzy")
		}),
	vapCase("an unknown failurePolicy", "spec.failurePolicy", "Unsupported value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.FailurePolicy = ptr.To[admissionregistrationv1.FailurePolicyType]("Retry")
		}),
	vapCase("a namespaceSelector with an invalid operator", "spec.matchConstraints.namespaceSelector.matchExpressions[0].operator", "not a valid selector operator",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Within", Values: []string{"v"}}}}
		}),
	vapCase("a variable whose name is not a CEL identifier", "spec.variables[0].name", "must be a valid CEL identifier",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "not-an-identifier", Expression: "true"}}
		}),
	// An auditAnnotation's key is checked as "<policy name>/<key>", a
	// qualified name: the policy's name counts, whatever its length.
	vapCaseNamed("a one-character name and an auditAnnotation", "x", "", "",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "reason", ValueExpression: "'a'"}}
		}),
	vapCase("an auditAnnotation with a blank valueExpression", "spec.auditAnnotations[0].valueExpression", "valueExpression is not specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "  "}}
		}),
	vapCase("an auditAnnotation valueExpression of one character", "spec.auditAnnotations[0].valueExpression", "undeclared reference to 'x'",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "x"}}
		}),
	vapCase("an auditAnnotation key that is not a qualified name", "spec.auditAnnotations[0].key", "name part must consist of alphanumeric characters",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "bad key", ValueExpression: "'a'"}}
		}),
	vapCase("two auditAnnotations with the same key", "spec.auditAnnotations[1].key", "Duplicate value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "'a'"}, {Key: "k", ValueExpression: "'b'"}}
		}),
	vapCase("a paramKind without kind", "spec.paramKind.kind", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1"}
		}),

	// ValidatingAdmissionPolicyBinding.
	vapbCase("no policyName", "spec.policyName", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) { s.PolicyName = "" }),
	vapbCase("no validationActions", "spec.validationActions", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) { s.ValidationActions = nil }),
	vapbCase("a validationAction twice", "spec.validationActions[1]", "Duplicate value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny, admissionregistrationv1.Deny}
		}),
	vapbCase("an unknown validationAction", "spec.validationActions[0]", "Unsupported value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.ValidationActions = []admissionregistrationv1.ValidationAction{"Block"}
		}),
	vapbCase("a paramRef with both name and selector", "spec.paramRef.name", "name and selector are mutually exclusive",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = paramRef("params", anyLabels, ptr.To(admissionregistrationv1.DenyAction))
		}),
	vapbCase("a paramRef with neither name nor selector", "spec.paramRef", "one of name or selector must be specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = paramRef("", nil, ptr.To(admissionregistrationv1.DenyAction))
		}),
	vapbCase("a paramRef without parameterNotFoundAction", "spec.paramRef.parameterNotFoundAction", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = paramRef("params", nil, nil)
		}),
	vapbCase("a paramRef with an unknown parameterNotFoundAction", "spec.paramRef.parameterNotFoundAction", "Unsupported value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = paramRef("params", nil, ptr.To[admissionregistrationv1.ParameterNotFoundActionType]("Skip"))
		}),
	vapbCase("matchResources resourceRules with * and another resource", "spec.matchResources.resourceRules[0].resources", "if '*' is present",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.MatchResources = speckit.PolicyConfigMapRules()
			ruleResources(s.MatchResources, "*", "configmaps")
		}),

	// MutatingAdmissionPolicy.
	mapCase("an unknown patchType", "spec.mutations[0].patchType", "Unsupported value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations[0].PatchType = "StrategicMerge"
		}),
	mapCase("no mutations", "spec.mutations", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) { s.Mutations = nil }),
	mapCase("patchType JSONPatch without jsonPatch", "spec.mutations[0].jsonPatch", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations[0].PatchType = mutatingpolicy.PatchTypeJSONPatch
		}),
	mapCase("an applyConfiguration expression that does not compile", "spec.mutations[0].applyConfiguration.expression", "compilation failed",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations = []mutatingpolicy.Mutation{speckit.ApplyConfiguration("Object{")}
		}),
	mapCase("a JSONPatch expression that does not compile", "spec.mutations[0].jsonPatch.expression", "compilation failed",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations = []mutatingpolicy.Mutation{speckit.JSONPatch("[JSONPatch{")}
		}),
	mapCase("an unknown reinvocationPolicy", "spec.reinvocationPolicy", "Unsupported value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) { s.ReinvocationPolicy = "Sometimes" }),
	mapCase("an unknown failurePolicy", "spec.failurePolicy", "Unsupported value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.FailurePolicy = ptr.To[admissionregistrationv1.FailurePolicyType]("Retry")
		}),
	mapCase("matchConstraints matching DELETE, which cannot be mutated", "spec.matchConstraints.resourceRules.operations", "Unsupported value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.MatchConstraints = ruleOperations(admissionregistrationv1.Delete)
		}),
	mapCase("resourceRules with * and another resource", "spec.matchConstraints.resourceRules[0].resources", "if '*' is present",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			ruleResources(s.MatchConstraints, "*", "configmaps")
		}),

	// Rules make coverage found never run: paramKind, matchConditions,
	// variables, messages, policy rules.
	vapCase("a paramKind without apiVersion", "spec.paramKind.apiVersion", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{Kind: "ConfigMap"}
		}),
	vapCase("a paramKind apiVersion with two slashes", "spec.paramKind.apiVersion", "unexpected GroupVersion string",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: "ConfigMap"}
		}),
	vapCase("a paramKind group that is not a DNS subdomain", "spec.paramKind.apiVersion", "RFC 1123 subdomain",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "Bad_Group/v1", Kind: "ConfigMap"}
		}),
	vapCase("a paramKind apiVersion without version", "spec.paramKind.apiVersion", "version must be specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/", Kind: "ConfigMap"}
		}),
	vapCase("a paramKind version that is not a DNS label", "spec.paramKind.apiVersion", "DNS-1035 label",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "example.com/V1", Kind: "ConfigMap"}
		}),
	vapCase("a paramKind kind starting with a digit", "spec.paramKind.kind", "may have mixed case",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "9x"}
		}),
	vapCase("a matchCondition with a blank expression", "spec.matchConditions[0].expression", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "blank", Expression: "  "}}
		}),
	vapCase("a matchCondition without a name", "spec.matchConditions[0].name", "Required value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConditions = []admissionregistrationv1.MatchCondition{{Expression: "true"}}
		}),
	vapCase("a variable without a name", "spec.variables[0].name", "name is not specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Expression: "true"}}
		}),
	vapCase("a variable with a one-character expression", "", "",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "one", Expression: "1"}}
		}),
	vapCase("a variable with a blank expression", "spec.variables[0].expression", "expression is not specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "v", Expression: "  "}}
		}),
	vapCase("a blank messageExpression", "spec.validations[0].messageExpression", "must be non-empty if specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].MessageExpression = "  "
		}),
	vapCase("a messageExpression of one space", "spec.validations[0].messageExpression", "must be non-empty if specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].MessageExpression = " "
		}),
	vapCase("a blank message", "spec.validations[0].message", "must be non-empty if specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.Validations[0].Message = "  " }),
	vapCase("a message of one space", "spec.validations[0].message", "must be non-empty if specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) { s.Validations[0].Message = " " }),
	vapCase("a message with a line break", "spec.validations[0].message", "must not contain line breaks",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Message = "two\nlines"
		}),

	// MutatingAdmissionPolicyBinding.
	mapbCase("no policyName", "spec.policyName", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicyBindingSpec) { s.PolicyName = "" }),
	mapbCase("a paramRef without parameterNotFoundAction", "spec.paramRef.parameterNotFoundAction", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicyBindingSpec) {
			s.ParamRef = paramRef("params", nil, nil)
		}),
	mapbCase("matchResources matching DELETE, which cannot be mutated", "spec.matchResources.resourceRules.operations", "Unsupported value",
		func(s *mutatingpolicy.MutatingAdmissionPolicyBindingSpec) {
			s.MatchResources = ruleOperations(admissionregistrationv1.Delete)
		}),
}

var (
	_ = describePolicyValidation(validatingAdmissionPolicyValidation, "ValidatingAdmissionPolicy")
	_ = describePolicyValidation(mutatingAdmissionPolicyValidation, "MutatingAdmissionPolicy")
)

// describePolicyValidation declares one case for each policyConfigCases
// entry whose kind starts with kind (the policy and its binding).
func describePolicyValidation(s spec.Spec, kind string) bool {
	return harness.Describe(s, func(f *harness.Framework) {
		cases := append(policyConfigCases[:len(policyConfigCases):len(policyConfigCases)], paramsReferenceCases...)
		cases = append(cases, policyRuleCases...)
		for _, tc := range append(cases, policyUpdateCases...) {
			if !strings.HasPrefix(tc.kind, kind) {
				continue
			}
			verdict := "refused naming " + tc.field
			if tc.field == "" {
				verdict = "accepted"
			}
			ginkgo.It(fmt.Sprintf("%s with %s: %s", tc.kind, tc.name, verdict), func(ctx ginkgo.SpecContext) {
				// Dry runs: validation runs, nothing is stored.
				err := tc.create(ctx, f)
				if tc.field == "" {
					gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a %s with %s must be accepted", tc.kind, tc.name)
				} else {
					expectRefusedNaming(err, fmt.Sprintf("a %s with %s", tc.kind, tc.name), tc.field, tc.detail)
				}
			})
		}
	})
}
