package ordering

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
)

// Admission operations, as webhook rules and AdmissionReviews spell them.
const (
	opCreate  = admissionregistrationv1.Create
	opUpdate  = admissionregistrationv1.Update
	opDelete  = admissionregistrationv1.Delete
	opConnect = admissionregistrationv1.Connect
)

// rule matches ops on the named resources of one API group, namespaced,
// every version (the request is matched as sent).
func rule(group string, ops []admissionregistrationv1.OperationType, resources ...string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: resources,
			Scope: ptr.To(admissionregistrationv1.NamespacedScope),
		},
	}}
}

func ops(o ...admissionregistrationv1.OperationType) []admissionregistrationv1.OperationType {
	return o
}

// allow answers allowed without changing anything.
func allow() fakewebhook.Behaviour { return fakewebhook.Behaviour{Action: fakewebhook.Allow} }

// patch answers allowed with the given JSONPatch operations.
func patch(operations ...fakewebhook.PatchOperation) fakewebhook.Behaviour {
	return fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: operations}
}

// annotate adds (or replaces) one annotation; every object the specs send
// carries the request annotation, so the annotations map exists.
func annotate(key, value string) fakewebhook.PatchOperation {
	return fakewebhook.PatchOperation{Op: "add", Path: "/metadata/annotations/" + escape(key), Value: value}
}

// setData adds (or replaces) one ConfigMap data key.
func setData(key, value string) fakewebhook.PatchOperation {
	return fakewebhook.PatchOperation{Op: "add", Path: "/data/" + escape(key), Value: value}
}

// ifNeeded and never are the two reinvocation policies.
var (
	ifNeeded = ptr.To(admissionregistrationv1.IfNeededReinvocationPolicy)
	never    = ptr.To(admissionregistrationv1.NeverReinvocationPolicy)
)
