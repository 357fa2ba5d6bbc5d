package contract

// Configuration changes enforced within their bound, on every apiserver
// replica (seed 002 Goals and Synchronization: "a change becomes effective in
// 1s"). The bound is the harness's webhookConfigPropagation and
// policyPropagation (run --bound). The initializers' own propagation, which
// only the reference implementation provides, is in clauses_initializers.go.

var _ = Register(
	Clause{ID: "propagation.webhook-configuration-change", Area: Propagation,
		Source:  "seed 002 Goals (config applied within some bound) and Synchronization (a change becomes effective in 1s); admissionregistration.k8s.io/v1 {Mutating,Validating}WebhookConfiguration",
		Promise: "Creating a webhook configuration, changing its rules, changing its failurePolicy and deleting it are each enforced on every apiserver replica within the propagation bound (1 s by default).",
		Specs:   []string{"WebhookConfigurationPropagation"}},
	Clause{ID: "propagation.webhook-field-change", Area: Propagation,
		Source: "seed 002 Goals (config applied within some bound); admissionregistration.k8s.io/v1 {Mutating,Validating}WebhookConfiguration.webhooks[]",
		Promise: "A change to any behaviour-bearing field of a live webhook (rules' operations, resources, apiGroups, apiVersions and scope; namespaceSelector; objectSelector; matchConditions; " +
			"clientConfig url and caBundle; failurePolicy; timeoutSeconds; matchPolicy; admissionReviewVersions; name), and changing it back, is each enforced on every apiserver replica within the propagation bound.",
		Specs: []string{"WebhookFieldChanges"}},
	Clause{ID: "propagation.policy-field-change", Area: Propagation,
		Source: "seed 002 Goals (config applied within some bound); admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec, ValidatingAdmissionPolicyBinding.spec",
		Promise: "A change to any behaviour-bearing field of a live ValidatingAdmissionPolicy (validations' expression, message, messageExpression and reason; variables; matchConditions; matchConstraints' rules and namespaceSelector; failurePolicy; paramKind) " +
			"or of its binding (validationActions; matchResources' selectors; paramRef; policyName), and changing it back, is each enforced on every apiserver replica within the policy propagation bound.",
		Specs: []string{"PolicyFieldChanges"}},
	Clause{ID: "propagation.policy-change", Area: Propagation,
		Source:  "seed 002 Goals (config applied within some bound); admissionregistration.k8s.io/v1 {Validating,Mutating}AdmissionPolicy and bindings (kube-apiserver recompiles policies every second)",
		Promise: "Binding a ValidatingAdmissionPolicy or a MutatingAdmissionPolicy, changing the policy and deleting the binding are each enforced on every apiserver replica within the policy propagation bound (2 s by default).",
		Specs:   []string{"ValidatingAdmissionPolicyPropagation", "MutatingAdmissionPolicyPropagation"}},
)
