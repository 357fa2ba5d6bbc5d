package contract

// Failure policies and timeouts: what the apiserver does when a webhook call
// fails (seed 002 ExternalAdmissionHook.FailurePolicy and its fail-open
// handling), which answers count as a failed call, and how long a call may
// take. Pinned to k8s.io/apiserver v0.37.2
// pkg/admission/plugin/webhook/{mutating,validating,request}.

const failureWebhookRef = "admissionregistration.k8s.io/v1 {Mutating,Validating}Webhook"

var _ = Register(
	Clause{ID: "failure.fail-rejects", Area: FailurePolicy,
		Source:  failureWebhookRef + ".failurePolicy (Fail); seed 002 ExternalAdmissionHook.FailurePolicy",
		Promise: "Under failurePolicy Fail, a mutating or validating webhook call that fails in any way (timeout, refused connection, untrusted certificate, HTTP error, malformed body, wrong uid or apiVersion) rejects the request with HTTP 500 InternalError, \"failed calling webhook \\\"<name>\\\"\".",
		Specs:   []string{"FailurePolicyEveryFailureMode", "FailOpenTiming", "UnreadyWebhookDoesNotBlock"}},
	Clause{ID: "failure.ignore-admits", Area: FailurePolicy,
		Source:  failureWebhookRef + ".failurePolicy (Ignore); seed 002 Handling fail-open initializers / webhooks",
		Promise: "Under failurePolicy Ignore, a failed call is skipped: the request goes on as if the webhook had not been called, and nothing a failed mutating call answered is applied.",
		Specs:   []string{"FailurePolicyEveryFailureMode", "FailOpenTiming", "UnreadyWebhookDoesNotBlock"}},
	Clause{ID: "failure.unready-webhook-blocks-only-its-scope", Area: FailurePolicy,
		Source:  "seed 002 Goals (do not block the entire cluster if webhooks are not ready after registration); Handling webhooks that are not ready but registered",
		Promise: "A registered webhook whose server does not exist yet blocks no request under Ignore, and under Fail rejects only the requests its rules and selectors match.",
		Specs:   []string{"UnreadyWebhookDoesNotBlock"}},
	Clause{ID: "failure.timeout-bounds-call", Area: FailurePolicy,
		Source:  failureWebhookRef + ".timeoutSeconds; seed 002 (the call is bounded by the webhook's timeout)",
		Promise: "A webhook that does not answer is given up after its timeoutSeconds T (unset: the v1 default of 10 s), no later than T plus the allowed slack, or sooner when the request's own timeout is shorter; the failure is then handled by the failurePolicy.",
		Specs:   []string{"FailOpenTiming"}},
	Clause{ID: "failure.chain-deadline", Area: FailurePolicy,
		Source: "k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/mutating/dispatcher.go, validating/dispatcher.go (each call's context derives from the request's); kubernetes issue 128162",
		Promise: "Webhooks called one after another share the request's deadline: a later webhook is given, and told in ?timeout=, only what the earlier ones left when that is shorter than its timeoutSeconds; " +
			"when the deadline passes during admission the request fails (504 Timeout) and nothing is stored, even if every webhook is failurePolicy Ignore; an answer within what is left is used.",
		Specs: []string{"ChainTimeoutBudget"}},
	Clause{ID: "failure.chain-deadline.validating", Area: FailurePolicy,
		Source:  "k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/validating/dispatcher.go Dispatch (no call once the request's context is done); kubernetes issue 128162",
		Promise: "A request whose deadline has passed when its validating phase starts fails with 504 Timeout and nothing is stored; the validating webhooks it matches are not called, and the passed deadline is no failed call of theirs under either failurePolicy (no call, rejection or fail-open counted for them).",
		Specs:   []string{"ValidatingWebhooksAfterDeadline"}},
	Clause{ID: "failure.service-reference", Area: FailurePolicy, Optional: "WebhookServiceReference",
		Source: "admissionregistration.k8s.io/v1 WebhookClientConfig.service; k8s.io/apiserver v0.37.2 pkg/util/webhook (service resolution, TLS server name <service>.<namespace>.svc)",
		Promise: "A webhook named by clientConfig.service is called at the Service's port (resolved to its endpoints), on service.path, with TLS verified against caBundle for <service>.<namespace>.svc; " +
			"a port the Service does not have, or a Service or namespace that does not exist, is a failed call (500 under Fail); a live change of any of them is enforced within the propagation bound.",
		Specs: []string{"WebhookServiceReference"}},
	Clause{ID: "failure.service-balanced-per-request", Area: FailurePolicy, Optional: "WebhookRoundTripLoadBalancing",
		Source: "k8s.io/apiserver v0.37.2 pkg/util/webhook/client.go (resolvingRoundTripper under gate WebhookRoundTripLoadBalancing, beta in 1.37); pkg/util/proxy RandomEndpoint",
		Promise: "With the gate on and the apiserver resolving Services to endpoints itself, a Service webhook's endpoint is picked for every request, not once per connection: " +
			"successive calls reach every ready endpoint; an endpoint removed from the Service gets no call once its removal has reached the apiserver, within the propagation bound.",
		Specs: []string{"WebhookServiceBalancedPerRequest"}},
	Clause{ID: "failure.wrong-uid-fails-the-call", Area: FailurePolicy,
		Source:  "admission.k8s.io/v1 AdmissionResponse.uid (must match the request's uid)",
		Promise: "An answer whose response.uid is not the request's uid is a failed call, handled by the failurePolicy; its patch is never applied.",
		Specs:   []string{"FailurePolicyEveryFailureMode"}},
	Clause{ID: "failure.wrong-version-fails-the-call", Area: FailurePolicy,
		Source:  "admission.k8s.io/v1 AdmissionReview (the answer is in the apiVersion of the request)",
		Promise: "An answer in another AdmissionReview apiVersion than the request's is a failed call, handled by the failurePolicy; its patch is never applied.",
		Specs:   []string{"FailurePolicyEveryFailureMode"}},
	Clause{ID: "failure.fail-open-observable", Area: FailurePolicy, Optional: "AuditLog",
		Source:  "seed 002 (webhooks may fail open; failing open must stay visible to admins); kube-apiserver's failed-open audit annotations and apiserver_admission_webhook_fail_open_count",
		Promise: "A request a webhook failed open on carries the audit annotation failed-open.{mutation,validating}.webhook.admission.k8s.io/round_<R>_index_<N> naming the webhook, and apiserver_admission_webhook_fail_open_count counts it (read from the audit log and /metrics).",
		Specs:   []string{"FailOpenObservable"}},
)
