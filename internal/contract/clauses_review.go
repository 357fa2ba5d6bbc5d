package contract

// What an AdmissionReview request carries, for every operation (seed 001's
// Attributes; admission.k8s.io/v1 AdmissionRequest). Pinned to
// k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/request and the
// endpoint handlers that build the admission attributes.

const reqRef = "admission.k8s.io/v1 AdmissionRequest"

var _ = Register(
	Clause{ID: "review.uid.per-call", Area: ReviewRequest, Source: reqRef + ".uid",
		Promise: "Every call carries a non-empty uid identifying that call (request and response), so two webhooks called for one request get two uids.",
		Specs:   []string{"ReviewRequestContent"}},
	Clause{ID: "review.target", Area: ReviewRequest, Source: "seed 001 Attributes.GetKind, GetResource, GetSubresource; " + reqRef + ".kind, resource, subResource",
		Promise: "kind, resource and subResource name what is admitted, for CREATE, UPDATE, every patch type, DELETE and CONNECT, in mutating and validating admission alike.",
		Specs:   []string{"ReviewRequestContent"}},
	Clause{ID: "review.request-target", Area: ReviewRequest, Source: reqRef + ".requestKind, requestResource, requestSubResource",
		Promise: "requestKind, requestResource and requestSubResource equal kind, resource and subResource when no conversion took place, and name the version the client used when matchPolicy Equivalent converted the request.",
		Specs:   []string{"ReviewRequestContent", "ReviewRequestSubresources", "MatchingPolicyExactAndEquivalent"}},
	Clause{ID: "review.subresource", Area: ReviewRequest, Source: "seed 001 Attributes.GetSubresource (a subresource may have a different kind)",
		Promise: "A request to a subresource carries the parent's resource, the subresource's name, and the subresource's kind (a Deployment for deployments/status, an autoscaling/v1 Scale for deployments/scale) with object and oldObject of that kind; a subresource rule does not match the parent.",
		Specs:   []string{"ReviewRequestSubresources"}},
	Clause{ID: "review.name.generate-name", Area: ReviewRequest, Source: "seed 001 Attributes.GetName (empty when the server generates the name); " + reqRef + ".name",
		Promise: "A CREATE relying on generateName reaches mutating admission with an empty name and validating admission with the generated name; otherwise name is the object's name.",
		Specs:   []string{"ReviewRequestContent"}},
	Clause{ID: "review.namespace", Area: ReviewRequest, Source: "seed 001 Attributes.GetNamespace; " + reqRef + ".namespace",
		Promise: "namespace is the namespace of the request.",
		Specs:   []string{"ReviewRequestContent"}},
	Clause{ID: "review.operation", Area: ReviewRequest, Source: "seed 001 Attributes.GetOperation; " + reqRef + ".operation",
		Promise: "operation is the operation performed: CREATE for a create and for an apply that creates, UPDATE for an update and a patch of an existing object, DELETE, CONNECT.",
		Specs:   []string{"ReviewRequestContent"}},
	Clause{ID: "review.user-info", Area: ReviewRequest, Source: "seed 001 Attributes.GetUserInfo; " + reqRef + ".userInfo",
		Promise: "userInfo is the identity the apiserver authenticated for the request (as a SelfSubjectReview reports it): username, uid, groups and extra; for an impersonated user, the impersonated identity with system:authenticated added.",
		Specs:   []string{"ReviewRequestContent", "ReviewRequestUserInfo"}},
	Clause{ID: "review.object", Area: ReviewRequest, Source: "seed 001 Attributes.GetObject; " + reqRef + ".object",
		Promise: "object is the object as admitted so far (the new object of an update, the patched object of a patch, the connect options of a CONNECT) and is absent on DELETE.",
		Specs:   []string{"ReviewRequestContent", "ConnectReachesAdmission"}},
	Clause{ID: "review.old-object", Area: ReviewRequest, Source: "seed 001 Attributes.GetOldObject (only populated for UPDATE requests); " + reqRef + ".oldObject",
		Promise: "oldObject is the stored object on UPDATE (every patch type included) and the object being deleted on DELETE, and is absent on CREATE and CONNECT.",
		Specs:   []string{"ReviewRequestContent", "DeleteReachesValidatingWithOldObject"}},
	Clause{ID: "review.options", Area: ReviewRequest, Source: reqRef + ".options",
		Promise: "options are the meta.k8s.io/v1 options of the operation performed, with the client's fields: CreateOptions on a create (and on an apply that creates), UpdateOptions on an update and a patch of an existing object, DeleteOptions with propagationPolicy and preconditions on DELETE, none on CONNECT.",
		Specs:   []string{"ReviewRequestContent"}},
	Clause{ID: "review.dry-run", Area: ReviewRequest, Source: reqRef + ".dryRun",
		Promise: "dryRun is true for a dry-run request (and its options carry dryRun [All]) and false otherwise.",
		Specs:   []string{"ReviewRequestContent", "DryRunAndSideEffects"}},
	Clause{ID: "review.version-negotiation", Area: ReviewRequest, Source: "admissionregistration.k8s.io/v1 ValidatingWebhook.admissionReviewVersions",
		Promise: "A webhook receives the first AdmissionReview version in its admissionReviewVersions that the apiserver speaks.",
		Specs:   []string{"AdmissionReviewVersionNegotiation"}},
)
