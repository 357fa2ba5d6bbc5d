package contract

// Conditional authorization enforced at admission: Kubernetes 1.38, KEP-5681,
// gate ConditionalAuthorization (alpha, off by default). Read from the
// v1.38.0-beta.0 sources: k8s.io/apiserver
// pkg/admission/plugin/authorizer/conditionsenforcer/conditionsenforcer.go
// (the AuthorizationConditionsEnforcer plugin), plugin/pkg/authorizer/webhook
// (ConditionsAwareAuthorize sends a SubjectAccessReview saying it handles
// conditional decisions; EvaluateConditions sends an
// authorization.k8s.io/v1alpha1 AuthorizationConditionsReview with the
// object), pkg/endpoints/filters/authorization.go (the audit annotation
// keys) and k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go (the
// plugin's place: after ValidatingAdmissionPolicy, before
// ValidatingAdmissionWebhook; on by default, active only with the gate).
//
// No spec checks these yet: the harness cannot link kube-apiserver
// v1.38.0-beta.0 on this machine (the module proxy does not serve the new
// staging modules k8s.io/apiextensions-api and k8s.io/ktesting
// v0.38.0-beta.0), so no spec could be shown to pass on 1.38 and to fail on
// a broken 1.38 build. docs/kubernetes-versions.md says how they will run.

const (
	kep5681   = "KEP-5681 conditional authorization"
	enforcer  = "k8s.io/apiserver pkg/admission/plugin/authorizer/conditionsenforcer"
	condAuthz = "ConditionalAuthorization"
)

var _ = Register(
	Clause{ID: "authz.conditional.enforced-on-object", Area: ConditionalAuthz, Optional: condAuthz,
		Source:  kep5681 + "; " + enforcer + " conditionsEnforcer.Validate; plugin/pkg/authorizer/webhook EvaluateConditions",
		Promise: "A request an authorizer allows only under conditions passes authorization and is judged in the validating admission phase on its object: admitted when the authorizer's evaluation of the conditions allows it, refused when it denies or has no opinion; an unconditional allow is not evaluated again."},
	Clause{ID: "authz.conditional.sees-mutated-object", Area: ConditionalAuthz, Optional: condAuthz,
		Source:  kep5681 + "; " + enforcer + " (a validating plugin: admission.NewVersionedAttributes of the object after the mutating chain)",
		Promise: "The conditions are evaluated on the object as every mutating webhook and mutating admission policy left it, converted to the request's version: a condition on a field a mutating webhook set sees the mutated value."},
	Clause{ID: "authz.conditional.order", Area: ConditionalAuthz, Optional: condAuthz,
		Source:  kep5681 + "; k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go AllOrderedPlugins (AuthorizationConditionsEnforcer after ValidatingAdmissionPolicy, before ValidatingAdmissionWebhook)",
		Promise: "The conditions are evaluated after the validating admission policies and before the validating webhooks: a request a policy denies is never sent for condition evaluation, and a request the conditions deny never reaches a validating webhook."},
	Clause{ID: "authz.conditional.denial", Area: ConditionalAuthz, Optional: condAuthz,
		Source:  kep5681 + "; " + enforcer + " (responsewriters.ForbiddenStatusError; filters.DecisionAnnotationKey, ReasonAnnotationKey)",
		Promise: "A request the conditions deny is refused with 403 Forbidden carrying the authorizer's reason, and its audit event has authorization.k8s.io/decision=forbid and authorization.k8s.io/reason=the reason; one they allow has authorization.k8s.io/decision=allow and the reason."},
	Clause{ID: "authz.conditional.dry-run", Area: ConditionalAuthz, Optional: condAuthz,
		Source:  kep5681 + "; " + enforcer + " (Validate does not look at dryRun)",
		Promise: "A dry-run request is judged by the conditions as the same request without dry-run: the same object is evaluated and the same refusal returned, nothing is stored."},
	Clause{ID: "authz.conditional.fail-closed", Area: ConditionalAuthz, Optional: condAuthz,
		Source:  kep5681 + "; " + enforcer + " evaluateWithReturnGuard; plugin/pkg/authorizer/webhook EvaluateConditions (a decision outside the possible ones, a missing response)",
		Promise: "An evaluation answering a decision outside the ones the conditional decision said were possible, or no valid answer, never admits the request: it is refused (500 Internal error) and its audit event has authorization.k8s.io/reason=internal error."},
)
