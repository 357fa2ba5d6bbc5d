package contract

// What the apiserver does with a webhook's answer beyond allowed and patch
// (admission.k8s.io/v1 AdmissionResponse). Pinned to k8s.io/apiserver
// v0.37.2 pkg/admission/plugin/webhook/{request,errors,mutating,validating}
// (from v0.36.3 only the objects moved behind VersionedAttributes' LazyObject).

const respRef = "admission.k8s.io/v1 AdmissionResponse"

var _ = Register(
	Clause{ID: "answer.denial.status", Area: WebhookAnswer, Source: "seed 001 Background (a rejected request propagates why it failed); " + respRef + ".status",
		Promise: "A denial reaches the client with the webhook's HTTP code, reason and details (name, group, kind, uid, retryAfterSeconds and causes, unchanged), and the message \"admission webhook \\\"<name>\\\" denied the request: <message>\"; nothing is stored.",
		Specs:   []string{"WebhookDenialStatus"}},
	Clause{ID: "answer.denial.fallbacks", Area: WebhookAnswer, Source: respRef + ".status",
		Promise: "A denial without a message is explained by its reason, one with neither says \"without explanation\", a code below 400 (or none) becomes 400, and a status Success (or none) becomes Failure.",
		Specs:   []string{"WebhookDenialStatus"}},
	Clause{ID: "answer.patch-needs-patch-type", Area: WebhookAnswer, Source: respRef + ".patch, patchType",
		Promise: "A v1 answer with a patch and no patchType, or a patchType and no patch, is a failed call: failurePolicy Fail rejects with 500 naming the fault, Ignore admits without the patch.",
		Specs:   []string{"WebhookPatchRules"}},
	Clause{ID: "answer.validating-no-patch", Area: WebhookAnswer, Source: "seed 000 (validators may not mutate); " + respRef + ".patch",
		Promise: "A validating webhook's answer carrying a patch is a failed call; the patch is never applied.",
		Specs:   []string{"WebhookPatchRules"}},
	Clause{ID: "answer.patch-must-apply", Area: WebhookAnswer, Source: respRef + ".patch",
		Promise: "A patch that does not apply to the object rejects the request with 500, and no part of it is stored; so does a patch that applies but leaves no object of the request's kind (a value of the wrong type) under failurePolicy Fail; under Ignore such a request is rejected (the pinned release, docs/upstream-defects.md) or admitted unpatched, never with the value.",
		Specs:   []string{"WebhookPatchRules"}},
	Clause{ID: "answer.patch-on-delete", Area: WebhookAnswer, Source: respRef + ".patch",
		Promise: "A patch answering a DELETE (which has no object) rejects the delete, and the object stays.",
		Specs:   []string{"WebhookPatchRules"}},
	Clause{ID: "answer.patch-then-strategy", Area: WebhookAnswer, Source: "seed 000 Proposed update flow: admit.ApplyMutations, then r.ValidateUpdate",
		Promise: "A patched object still passes the REST strategy's validation: a patch changing an immutable ConfigMap's data is refused with 422 on field data.",
		Specs:   []string{"WebhookPatchRules"}},
	Clause{ID: "answer.patch-defaulted", Area: WebhookAnswer, Source: "seed 000 Proposed create flow (admit.ApplyMutations, then the strategy and admit.Validate); " + respRef + ".patch",
		Promise: "Fields a patch leaves unset are defaulted like the client's: a container a patch adds gets terminationMessagePath, terminationMessagePolicy and imagePullPolicy before validating webhooks see the object and in what is stored.",
		Specs:   []string{"WebhookPatchDefaulted"}},
	Clause{ID: "answer.warnings", Area: WebhookAnswer, Source: respRef + ".warnings",
		Promise: "Every warning of a mutating or validating webhook's answer reaches the client once, on admitted and on denied requests.",
		Specs:   []string{"WebhookWarnings"}},
	Clause{ID: "answer.audit-annotations", Area: WebhookAnswer, Source: respRef + ".auditAnnotations", Optional: "AuditLog",
		Promise: "Every auditAnnotation of a mutating or validating webhook's answer reaches the request's audit event keyed <webhook name>/<key>, on admitted and on denied requests.",
		Specs:   []string{"WebhookAuditAnnotations"}},
	Clause{ID: "answer.audit-annotations.unusable-keys", Area: WebhookAnswer, Optional: "AuditLog",
		Source:  respRef + ".auditAnnotations; admissionregistration.k8s.io/v1 AuditAnnotation.key (the first annotation written with a key is kept, later ones discarded); k8s.io/apiserver v0.37.2 pkg/admission/attributes.go AddAnnotationWithLevel, checkKeyFormat",
		Promise: "An auditAnnotation of a webhook's answer whose key, prefixed with the webhook's name, is not a qualified name (a key with a slash, or with characters a name may not have) is dropped and the request goes on, the answer's valid keys kept, for mutating and validating webhooks; when two writers use one audit annotation key (two mutating webhooks of one name in two configurations, or a mutating webhook and a ValidatingAdmissionPolicy of its name) the first written value is kept and the later discarded.",
		Specs:   []string{"WebhookAuditAnnotationKeys"}},
	Clause{ID: "answer.uid-must-match", Area: WebhookAnswer, Source: respRef + ".uid",
		Promise: "An answer whose uid is not the request's is a failed call, handled by the failure policy; its patch is never applied.",
		Specs:   []string{"FailurePolicyEveryFailureMode"}},
	Clause{ID: "answer.forms.unusable", Area: WebhookAnswer, Source: respRef + " and admission.k8s.io/v1beta1 AdmissionResponse (response, patch, patchType)",
		Promise: "An answer without a response (v1 or v1beta1), a validating v1 answer with a patchType, a v1 patchType that is empty or not JSONPatch, a v1 patch without patchType (one byte long included), and a patch that is not a JSON patch are failed calls naming the fault (Fail: 500, Ignore: admitted unpatched); an empty JSON patch admits the object unchanged.",
		Specs:   []string{"WebhookAnswerForms"}},
	Clause{ID: "answer.forms.bare-denial", Area: WebhookAnswer, Source: respRef + ".status (optional)",
		Promise: "A denial without any status, in either review version, is HTTP 400 with the message \"admission webhook \\\"<name>\\\" denied the request without explanation\".",
		Specs:   []string{"WebhookAnswerForms"}},
	Clause{ID: "answer.forms.v1beta1", Area: WebhookAnswer, Source: "admission.k8s.io/v1beta1 AdmissionResponse (patchType optional, uid not verified)",
		Promise: "A v1beta1 answer is held to what v1beta1 promised: a patch without patchType is applied as a JSON patch, its uid is not compared with the request's, and a validating webhook's patch is dropped without failing the call.",
		Specs:   []string{"WebhookAnswerForms"}},
)
