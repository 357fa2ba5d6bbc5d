package access

import (
	"github.com/admission-conformance/admission-conformance/framework/runobjects"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Needed lists the permissions a run of specs uses (nil: every registered
// spec): the one source of what the preflight checks and of the
// ClusterRole an in-cluster run's service account gets. relay adds what
// the relay pod needs (the port-forward). Optional identities' rights are
// not in it (ForSpecs).
func Needed(relay bool, specs []spec.Spec) []Access {
	if specs == nil {
		specs = spec.All()
	}
	out := base(relay)
	own, _ := ForSpecs(specs)
	return append(out, own...)
}

// base is every permission but impersonation.
func base(relay bool) []Access {
	var out []Access
	add := func(group, resource string, namespaced bool, verbs ...string) {
		for _, v := range verbs {
			out = append(out, Access{Verb: v, Group: group, Resource: resource, Namespaced: namespaced})
		}
	}
	// attribute names the specs that need the last entry added, and why.
	attribute := func(why string, specs ...string) {
		out[len(out)-1].Why, out[len(out)-1].Specs = why, specs
	}
	// update and patch: specs label their own namespaces (Pod Security).
	add("", "namespaces", false, "create", "delete", "list", "get", "update", "patch")
	for _, r := range runobjects.AdmissionResources() {
		add("admissionregistration.k8s.io", r, false, "create", "update", "patch", "delete", "deletecollection", "list", "get")
	}
	for _, r := range []string{"configmaps", "pods", "services", "serviceaccounts", "limitranges", "resourcequotas", "persistentvolumeclaims"} {
		add("", r, true, "create", "update", "patch", "delete", "get", "list")
	}
	// Secrets are only created (a webhook or policy must see one); granted
	// cluster-wide like every namespaced right, so reading them is not.
	add("", "secrets", true, "create")
	attribute("a Secret create must reach webhooks and policies that match secrets", "WebhookConfigurationDefaults", "PolicyMatching")
	add("", "configmaps", true, "deletecollection")
	// Node admission and scheduling specs watch their pods' decisions and
	// read the kubelet's events about them.
	add("", "pods", true, "watch", "deletecollection")
	add("", "events", true, "list")
	add("", "events", true, "create")
	attribute("an event the harness itself creates is denied by a policy (RBAC must let it through to admission first)", "PolicyCELVariables")
	add("authorization.k8s.io", "subjectaccessreviews", false, "create")
	attribute("SubjectAccessReviews tell when every apiserver's RBAC has a new RoleBinding", "PolicyCELVariables")
	// The removed v1alpha1 initializers API is probed for its 404, which
	// RBAC would otherwise answer with a 403 first.
	add("admissionregistration.k8s.io", "initializerconfigurations", false, "list")
	attribute("the removed v1alpha1 initializers API answers 404, which RBAC would hide behind a 403", "InitializersAPIRemoved")
	// A ValidatingAdmissionPolicy whose paramKind names no resource of
	// this group (PolicyFailurePolicy): its creator must be allowed to get
	// every resource of the paramKind's group, which exists nowhere.
	add("admission-conformance.io", "*", false, "get")
	attribute("a policy whose paramKind names no resource may only be created by a user who may get every resource of its group, which serves nothing", "PolicyFailurePolicy")
	add("apps", "deployments", true, "create", "update", "delete", "get")
	// Dry-run creates of every workload kind PodSecurity warns about.
	for _, r := range []struct{ group, resource string }{{"apps", "replicasets"}, {"apps", "statefulsets"}, {"apps", "daemonsets"},
		{"batch", "jobs"}, {"batch", "cronjobs"}, {"", "replicationcontrollers"}, {"", "podtemplates"}} {
		add(r.group, r.resource, true, "create")
		attribute("a dry-run create of a workload whose pod template PodSecurity warns about (RBAC checks it like a real one)", "PodSecurityWarnsWorkloads")
	}
	// Subresources the specs write: a status update (services, pods), a
	// binding (a gated pod bound by hand).
	sub := func(verb, group, resource, subresource string, specs ...string) {
		out = append(out, Access{Verb: verb, Group: group, Resource: resource, Subresource: subresource, Namespaced: true, Specs: specs})
	}
	sub("update", "", "services", "status", "MutatingBeforeValidating")
	sub("update", "", "pods", "status", "MatchingResourcesAndWildcards")
	sub("create", "", "pods", "binding", "GatedPodBindingConflict")
	sub("update", "apps", "deployments", "status", "ReviewRequestSubresources")
	sub("update", "apps", "deployments", "scale", "ReviewRequestSubresources")
	// Roles and bindings in the spec namespaces grant the harness's own
	// test users what a case lets them do there.
	add("rbac.authorization.k8s.io", "roles", true, "create", "delete")
	add("rbac.authorization.k8s.io", "rolebindings", true, "create", "delete")
	add("autoscaling", "horizontalpodautoscalers", true, "create", "delete")
	sub("create", "", "pods", "exec", "ConnectReachesAdmission", "ReviewRequestContent")
	out = append(out, Access{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies", Subresource: "status",
		Specs: []string{"ValidatingAdmissionPolicyValidation"}, Why: "dry-run status updates: the API validates the status.typeChecking a client writes"})
	if relay {
		out = append(out, Access{Verb: "create", Resource: "pods", Subresource: "portforward", Namespaced: true,
			Why: "the harness's port-forward to its relay pod (--plugin-image)"})
	}
	add("", "nodes", false, "list", "get")
	// Node specs change the harness's own nodes: taints (update), the OS
	// label (patch), status.declaredFeatures (patch of status); resize
	// specs resize their pods through pods/resize (update, and patch as
	// kubectl patch --subresource resize does).
	out = append(out,
		Access{Verb: "update", Resource: "nodes", Specs: []string{"KubeletRejectsTaintToleration"}},
		Access{Verb: "patch", Resource: "nodes", Specs: []string{"NodeOSLabelNotLinux"}},
		Access{Verb: "patch", Resource: "nodes", Subresource: "status", Specs: []string{"ResizeNeedsNodeDeclaredFeature"}})
	sub("update", "", "pods", "resize", "LimitRangerConstraints", "ResourceQuotaConstraints")
	sub("patch", "", "pods", "resize", "NodeOSLabelNotLinux", "ResizeBeyondNodeAllocatableRefused", "ResizeNeedsNodeDeclaredFeature")
	add("scheduling.k8s.io", "priorityclasses", false, "create")
	attribute("dry-run creates of a PriorityClass (cluster-scoped, nothing stored), which RBAC checks like real ones", "NamespaceSelectorOnClusterScoped")
	// CustomResourceAdmission defines custom resources of its own group
	// (labelled, swept with the run) and creates them.
	add("apiextensions.k8s.io", "customresourcedefinitions", false, "create", "delete", "deletecollection", "list", "get")
	add(runobjects.CustomResourceGroup, "*", true, "create", "get", "list", "delete")
	add(runobjects.CustomResourceGroup, "*", true, "update")
	attribute("an update of a custom resource reaches a mutating webhook registered for its other version, with the old object converted", "ConversionBetweenMutatingWebhooks")
	// KubeletAdmitsUpToAllocatable counts a RuntimeClass's pod overhead:
	// it creates one, labelled with the run (runobjects: swept with it and
	// found by cleanup), and deletes it.
	add(runobjects.RuntimeClasses.Group, runobjects.RuntimeClasses.Resource, false, "delete", "deletecollection", "list", "get")
	add(runobjects.RuntimeClasses.Group, runobjects.RuntimeClasses.Resource, false, "create")
	attribute("a RuntimeClass whose pod overhead the kubelet counts at admission (labelled with the run, swept with it)", "KubeletAdmitsUpToAllocatable")
	return out
}
