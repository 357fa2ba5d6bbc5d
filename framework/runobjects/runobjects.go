// Package runobjects is the one list of the cluster-level kinds a run
// creates and labels with its run ID: what the sweep deletes, what
// `cleanup` looks for and reports, and what the preflight checks a user may
// manage. Namespaced objects go with their namespaces. The reference
// initializers install kinds of their own, which their sweep deletes: their
// install package lists them, and ReferenceInitializerKinds gives them here.
package runobjects

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admission-conformance/admission-conformance/reference/initializers/install"
)

// Kind is one cluster-level kind a run creates.
type Kind struct {
	Resource schema.GroupVersionResource
	// What names the kind in messages: plural, lower case, spaced.
	What string
}

const admissionGroup = "admissionregistration.k8s.io"

// kinds are in the order the sweep deletes them: webhook configurations
// first (nothing the harness registered may then get in the way of the
// other deletions), bindings before their policies, namespaces last.
var kinds = []Kind{
	{admission("mutatingwebhookconfigurations"), "mutating webhook configurations"},
	{admission("validatingwebhookconfigurations"), "validating webhook configurations"},
	{admission("validatingadmissionpolicybindings"), "validating admission policy bindings"},
	{admission("validatingadmissionpolicies"), "validating admission policies"},
	{admission("mutatingadmissionpolicybindings"), "mutating admission policy bindings"},
	{admission("mutatingadmissionpolicies"), "mutating admission policies"},
	// CustomResourceAdmission's definitions; deleting one deletes its
	// custom resources.
	{CustomResourceDefinitions, "custom resource definitions"},
	// KubeletAdmitsUpToAllocatable's RuntimeClass, whose pod overhead the
	// kubelet counts.
	{RuntimeClasses, "runtime classes"},
	{Namespaces, "namespaces"},
}

// ReferenceInitializerKinds returns the kinds the reference initializers
// install, in the order their sweep deletes them
// (reference/initializers/install.Kinds, the one list). Only a run that
// installed them sweeps them (it alone holds the rights to).
func ReferenceInitializerKinds() []Kind {
	var out []Kind
	for _, k := range install.Kinds() {
		out = append(out, Kind{Resource: k.Resource, What: k.What})
	}
	return out
}

// CustomResourceGroup is the API group of the custom resources a run
// defines (a kind of each case's own): nothing else is in it, so access to
// all its resources grants access to the run's own alone.
const CustomResourceGroup = "crd.admission-conformance.io"

// CustomResourceDefinitions is the resource of the CustomResourceDefinition
// kind.
var CustomResourceDefinitions = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// RuntimeClasses is the resource of the RuntimeClass kind.
var RuntimeClasses = schema.GroupVersionResource{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"}

// Namespaces is the resource of the Namespace kind, last in Kinds.
var Namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

func admission(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: admissionGroup, Version: "v1", Resource: resource}
}

// Kinds returns the kinds a run creates, in the order the sweep deletes
// them.
func Kinds() []Kind { return slices.Clone(kinds) }

// AdmissionResources returns the resource names of the admissionregistration.k8s.io
// kinds among them.
func AdmissionResources() []string {
	var out []string
	for _, k := range kinds {
		if k.Resource.Group == admissionGroup {
			out = append(out, k.Resource.Resource)
		}
	}
	return out
}
