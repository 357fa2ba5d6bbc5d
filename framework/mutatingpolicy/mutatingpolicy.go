// Package mutatingpolicy is the admissionregistration.k8s.io/v1
// MutatingAdmissionPolicy API for specs, whatever Kubernetes minor the
// harness is built with. k8s.io/api has these types only from v0.36 (the API
// went GA in 1.36), but a harness built with an older release must still
// compile, report the feature not-supported on a cluster that does not serve
// it (Served), and test a newer cluster that does. So the types are the
// project's own, with k8s.io/api's field names and JSON tags and its other
// admissionregistration/v1 types (MatchResources, ParamRef, ...) inside, and
// the objects travel through the dynamic client.
package mutatingpolicy

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The served resources.
var (
	GroupVersion = schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}
	Policies     = GroupVersion.WithResource("mutatingadmissionpolicies")
	Bindings     = GroupVersion.WithResource("mutatingadmissionpolicybindings")
)

// MutatingAdmissionPolicy is admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.
type MutatingAdmissionPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MutatingAdmissionPolicySpec `json:"spec,omitempty"`
}

// MutatingAdmissionPolicySpec is its spec.
type MutatingAdmissionPolicySpec struct {
	ParamKind          *admissionregistrationv1.ParamKind             `json:"paramKind,omitempty"`
	MatchConstraints   *admissionregistrationv1.MatchResources        `json:"matchConstraints,omitempty"`
	Variables          []admissionregistrationv1.Variable             `json:"variables,omitempty"`
	Mutations          []Mutation                                     `json:"mutations,omitempty"`
	FailurePolicy      *admissionregistrationv1.FailurePolicyType     `json:"failurePolicy,omitempty"`
	MatchConditions    []admissionregistrationv1.MatchCondition       `json:"matchConditions,omitempty"`
	ReinvocationPolicy admissionregistrationv1.ReinvocationPolicyType `json:"reinvocationPolicy,omitempty"`
}

// Mutation is one mutation of a policy.
type Mutation struct {
	PatchType          PatchType           `json:"patchType"`
	ApplyConfiguration *ApplyConfiguration `json:"applyConfiguration,omitempty"`
	JSONPatch          *JSONPatch          `json:"jsonPatch,omitempty"`
}

// PatchType says how a mutation patches the object.
type PatchType string

// The patch types.
const (
	PatchTypeApplyConfiguration PatchType = "ApplyConfiguration"
	PatchTypeJSONPatch          PatchType = "JSONPatch"
)

// ApplyConfiguration is a CEL expression giving an apply configuration.
type ApplyConfiguration struct {
	Expression string `json:"expression,omitempty"`
}

// JSONPatch is a CEL expression giving JSON patch operations.
type JSONPatch struct {
	Expression string `json:"expression,omitempty"`
}

// MutatingAdmissionPolicyBinding is admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding.
type MutatingAdmissionPolicyBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MutatingAdmissionPolicyBindingSpec `json:"spec,omitempty"`
}

// MutatingAdmissionPolicyBindingSpec is its spec.
type MutatingAdmissionPolicyBindingSpec struct {
	PolicyName     string                                  `json:"policyName,omitempty"`
	ParamRef       *admissionregistrationv1.ParamRef       `json:"paramRef,omitempty"`
	MatchResources *admissionregistrationv1.MatchResources `json:"matchResources,omitempty"`
}
