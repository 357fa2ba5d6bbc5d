package observability

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/internal/contract/decision"
)

// The decision table: one entry per audit annotation key, metric and
// forwarder of the pinned inventory, keyed by its ID. When
// TestEveryEntryIsDecided names an undecided entry, read what the pinned
// sources do with it and add the clauses whose specs assert it (write clause
// and spec first if none does), with Gap saying what of it no spec asserts,
// or OutOfScope saying why the contract needs nothing of it. Remove the
// entries it calls stale.

// Decision is the table's verdict on one entry.
type Decision = decision.Decision

func c(ids ...string) Decision { return decision.Of(ids...) }

func outOfScope(why string) Decision { return decision.OutOfScope(why) }

const (
	mutationAnnotations = "observability.audit.mutation-annotations"
	patchAnnotations    = "observability.audit.patch-annotations"
	webhookCalls        = "observability.metrics.webhook-calls"
	webhookRejections   = "observability.metrics.webhook-rejections"
	matchConditions     = "observability.metrics.match-conditions"
	policyChecks        = "observability.metrics.policy"
	mutatingChecks      = "observability.metrics.mutating-policy"
	admissionSteps      = "observability.metrics.admission-steps"
	failOpenObservable  = "failure.fail-open-observable"
	staticReload        = "static.invalid-reload-keeps-previous"

	// conditionTypeGap: the type label of the match condition metrics.
	conditionTypeGap = "the type label is asserted as documented (validate or admit) or as pinned: v0.37.2 labels a validating webhook's evaluation errors and times \"validating\" (webhook/accessors.go) but its exclusions \"validate\" (generic/webhook.go), and a MutatingAdmissionPolicy's conditions \"validate\" (policy/mutating/compilation.go)"
	x509Why          = "counts webhook servers whose serving certificate lacks a subjectAltName or is signed with SHA-1, which the Go TLS stack of the pinned apiserver refuses anyway; a certificate-hygiene signal of the webhook client every webhook kind shares (authentication, authorization, conversion), not an admission behaviour, and the harness's webhook servers cannot be given such certificates"
)

// Table decides every entry of the pinned inventory, by ID.
var Table = map[string]Decision{
	// Audit annotations.
	"annotation failed-open.mutation.webhook.admission.k8s.io/round_{round}_index_{idx}": c(failOpenObservable),
	"annotation failed-open.validating.webhook.admission.k8s.io/round_0_index_{idx}":     c(failOpenObservable),
	"annotation mutation.webhook.admission.k8s.io/round_{round}_index_{idx}": c(mutationAnnotations).WithGap(
		"mutated for a patch that changes no field is not asserted: v0.37.2 compares the object with the patched one decoded back from JSON, whose managedFields times lost their nanoseconds, so it says true where the documentation (\"whether the webhook mutated the object\") says false"),
	"annotation patch.webhook.admission.k8s.io/round_{round}_index_{idx}": c(patchAnnotations),
	"annotation validation.policy.admission.k8s.io/validation_failure":    c("policy.audit.validation-failure", "policy.audit.several-bindings"),
	"annotation {h.Name}/{k}":       c("answer.audit-annotations"),
	"annotation {policyName}/{key}": c("policy.audit-annotations.key", "policy.audit-annotations.omitted"),

	// Metrics.
	"metric apiserver_admission_controller_admission_duration_seconds": c(admissionSteps).WithGap(
		"asserted for the two webhook plugins only, by samples above the 2.5 s bucket: the other compiled-in plugins are not admission extensions"),
	"metric apiserver_admission_match_condition_evaluation_errors_total": c(matchConditions).WithGap(conditionTypeGap),
	"metric apiserver_admission_match_condition_evaluation_seconds": c(matchConditions).WithGap(
		"a matching evaluation is not asserted: v0.37.2 times only the evaluations that exclude the request or fail (matchconditions/matcher.go returns a match before observing it), the help says every evaluation; " + conditionTypeGap),
	"metric apiserver_admission_match_condition_exclusions_total": c(matchConditions).WithGap(
		"policies are not asserted: v0.37.2 counts exclusions for webhooks only (generic/webhook.go), though the help names policies too"),
	"metric apiserver_admission_step_admission_duration_seconds": c(admissionSteps),
	"metric apiserver_admission_step_admission_duration_seconds_summary": c(admissionSteps).WithGap(
		"a lower bound only: a summary has no buckets to set the case's slow steps apart from every other request's, so its count and sum are asserted to grow by at least the case's"),
	"metric apiserver_admission_webhook_admission_duration_seconds":                                 c(webhookCalls),
	"metric apiserver_admission_webhook_fail_open_count":                                            c(failOpenObservable, webhookCalls),
	"metric apiserver_admission_webhook_rejection_count":                                            c(webhookRejections),
	"metric apiserver_admission_webhook_request_total":                                              c(webhookCalls),
	"metric apiserver_manifest_admission_config_controller_automatic_reload_last_timestamp_seconds": c(staticReload),
	"metric apiserver_manifest_admission_config_controller_automatic_reloads_total":                 c(staticReload),
	"metric apiserver_manifest_admission_config_controller_last_config_info":                        c(staticReload),
	"metric apiserver_mutating_admission_policy_check_duration_seconds":                             c(mutatingChecks),
	"metric apiserver_mutating_admission_policy_check_total": c(mutatingChecks).WithGap(
		"compile_error is not exercised: a stored policy that does not compile cannot be created"),
	"metric apiserver_validating_admission_policy_check_duration_seconds": c(policyChecks),
	"metric apiserver_validating_admission_policy_check_total": c(policyChecks).WithGap(
		"the error_type of a validation that evaluated to false is asserted as documented (no_error) or as pinned: v0.37.2 labels it invalid_error (validating/errors.go ErrorType calls every decision but an admit an error); passing validations count nothing in v0.37.2 and are not asserted; compile_error is not exercised: a stored policy that does not compile cannot be created"),
	"metric apiserver_webhooks_x509_insecure_sha1_total": outOfScope(x509Why),
	"metric apiserver_webhooks_x509_missing_san_total":   outOfScope(x509Why),

	// Forwarders.
	"forwarder pkg/admission/attributes.go (*attributesRecord).AddAnnotation": outOfScope(
		"stores, at level Metadata, the annotations plugins add: the keys are those of the annotation entries"),
	"forwarder pkg/admission/audit.go (*auditHandler).logAnnotations": outOfScope(
		"copies the annotations plugins added, up to the event's audit level, into the audit event: the keys are those of the annotation entries"),
}

// Check compares inv with table: an entry inv has and table does not
// decide is undecided; a decision for an entry inv does not have is stale;
// a malformed decision is invalid. The error lists them all.
func Check(inv Inventory, table map[string]Decision) error {
	have := map[string]bool{}
	var problems []string
	for _, id := range inv.IDs() {
		have[id] = true
		if _, ok := table[id]; !ok {
			problems = append(problems, fmt.Sprintf("%s is not decided: add it to internal/contract/observability/table.go with the clauses whose specs assert it, or why none needs to", id))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(table)) {
		if !have[id] {
			problems = append(problems, fmt.Sprintf("%s is decided but %s has no such entry: remove it from the table", id, inv.Module))
		}
		if err := table[id].Validate(); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", id, err))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}
