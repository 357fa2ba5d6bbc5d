package contract

// Observability: what an administrator can see of admission in the audit
// log and in the apiservers' metrics. Every audit annotation key and every
// metric the pinned admission code adds is inventoried, and decided, in
// internal/contract/observability; these are the clauses it maps them to
// (the failed-open annotations and the fail-open count are
// failure.fail-open-observable, the webhooks' and policies' own audit
// annotations answer.audit-annotations and policy.audit-*). Pinned to
// k8s.io/apiserver v0.37.2 pkg/admission/metrics,
// pkg/admission/plugin/webhook/{mutating,validating,generic,matchconditions}
// and pkg/admission/plugin/policy/{validating,mutating}.

const (
	obsMetricsRef  = "k8s.io/apiserver v0.37.2 pkg/admission/metrics/metrics.go"
	obsMutatingRef = "k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/mutating/dispatcher.go"
)

var _ = Register(
	Clause{ID: "observability.audit.mutation-annotations", Area: WebhookAnswer, Optional: "AuditLog",
		Source: obsMutatingRef + " (MutationAuditAnnotationPrefix, MutationAuditAnnotation)",
		Promise: "Every mutating webhook call leaves on the request's audit event mutation.webhook.admission.k8s.io/round_<R>_index_<N> = {\"configuration\", \"webhook\", \"mutated\"}, " +
			"R 0 for the first pass and 1 for a reinvocation, N the webhook's place among all the cluster's mutating webhooks, mutated true for a patch that changed the object and false for a call without a patch or a failed call.",
		Specs: []string{"MutationAuditAnnotations"}},
	Clause{ID: "observability.audit.patch-annotations", Area: WebhookAnswer, Optional: "AuditLog",
		Source: obsMutatingRef + " (PatchAuditAnnotationPrefix, PatchAuditAnnotation, added at audit level Request)",
		Promise: "Every patch applied from a mutating webhook's answer, even one changing nothing, leaves patch.webhook.admission.k8s.io/round_<R>_index_<N> = {\"configuration\", \"webhook\", \"patch\", \"patchType\": \"JSONPatch\"} " +
			"on audit events logged at level Request or above, and on no event logged at Metadata.",
		Specs: []string{"MutationAuditAnnotations"}},
	Clause{ID: "observability.metrics.webhook-calls", Area: WebhookAnswer, Optional: "APIServerMetrics",
		Source: obsMetricsRef + " (webhook_request_total, webhook_admission_duration_seconds, webhook_fail_open_count)",
		Promise: "Every webhook call counts one in apiserver_admission_webhook_request_total{name, type admit|validating, operation, code, rejected} (code 200 for an admitting answer, the denial's or the failed call's HTTP status, 0 for an answer the apiserver cannot apply, over 600 counted as 600; rejected true only when the call rejects the request) " +
			"and one sample, at least as long as the call, of apiserver_admission_webhook_admission_duration_seconds{name, type, operation, rejected}; a call failing open under failurePolicy Ignore also counts one in apiserver_admission_webhook_fail_open_count{name, type}.",
		Specs: []string{"WebhookCallMetrics", "MatchConditionMetrics"}},
	Clause{ID: "observability.metrics.webhook-rejections", Area: WebhookAnswer, Optional: "APIServerMetrics",
		Source: obsMetricsRef + " (webhook_rejection_count)",
		Promise: "Every request a webhook rejects counts one in apiserver_admission_webhook_rejection_count{name, type, operation, error_type, rejection_code}: no_error with the denial's code (400 for a code under 400, 600 for one over 600), " +
			"calling_webhook_error with the failed call's status (the webhook's HTTP error, 503 for a call without an answer) under failurePolicy Fail, apiserver_internal_error with code 0 for an answer the apiserver cannot apply; a call failing open counts none.",
		Specs: []string{"WebhookCallMetrics"}},
	Clause{ID: "observability.metrics.match-conditions", Area: Matching, Optional: "APIServerMetrics",
		Source: obsMetricsRef + " (match_condition_*); k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/matchconditions/matcher.go, generic/webhook.go",
		Promise: "A webhook whose matchConditions exclude a request (one false, or one failing to evaluate under failurePolicy Ignore) is not called and counts one in apiserver_admission_match_condition_exclusions_total{name, kind webhook, type, operation}; " +
			"a condition failing to evaluate counts one in apiserver_admission_match_condition_evaluation_errors_total, for a webhook or a ValidatingAdmissionPolicy (kind policy), and under failurePolicy Fail rejects the request with 403; each evaluation that excludes or fails is one sample of apiserver_admission_match_condition_evaluation_seconds.",
		Specs: []string{"MatchConditionMetrics"}},
	Clause{ID: "observability.metrics.policy", Area: CELPolicies, Optional: "APIServerMetrics",
		Source: "k8s.io/apiserver v0.37.2 pkg/admission/plugin/policy/validating/metrics/metrics.go, validating/dispatcher.go",
		Promise: "A ValidatingAdmissionPolicy counts in apiserver_validating_admission_policy_check_total{policy, policy_binding, error_type, enforcement_action}, with one sample of check_duration_seconds each, " +
			"one check per failed validation per validationAction of the binding (deny, warn, audit) and one per validation failing to evaluate (enforcement_action allow under failurePolicy Ignore, deny under Fail; error_type invalid_error).",
		Specs: []string{"PolicyCheckMetrics"}},
	Clause{ID: "observability.metrics.mutating-policy", Area: CELPolicies, Optional: "MutatingAdmissionPolicy",
		Source:  "k8s.io/apiserver v0.37.2 pkg/admission/plugin/policy/mutating/metrics/metrics.go, mutating/dispatcher.go",
		Promise: "A MutatingAdmissionPolicy counts in apiserver_mutating_admission_policy_check_total{policy, policy_binding, error_type}, with one sample of check_duration_seconds each, one check per mutation applied (no_error) and one per mutation failing to evaluate (invalid_error).",
		Specs:   []string{"MutatingPolicyCheckMetrics"}},
	Clause{ID: "observability.metrics.admission-steps", Area: Ordering, Optional: "APIServerMetrics",
		Source: obsMetricsRef + " (step_admission_duration_seconds, controller_admission_duration_seconds); k8s.io/apiserver v0.37.2 pkg/server/options/admission.go (WithStepMetrics, WithControllerMetrics)",
		Promise: "Each admission step of a request (admit, then validate) is one sample of apiserver_admission_step_admission_duration_seconds{type, operation, rejected} lasting at least as long as the webhooks called in it, " +
			"and each admission plugin's part one sample of apiserver_admission_controller_admission_duration_seconds under the plugin's name (MutatingAdmissionWebhook, ValidatingAdmissionWebhook).",
		Specs: []string{"AdmissionStepMetrics"}},
)
