package static

import (
	"fmt"

	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// invalidPolicyFileCases: files of a policy staticManifestsDir the loader
// must refuse (KEP-5793): documents it cannot decode or that are no policy
// or binding, policies and bindings API validation refuses, and the
// static-only rules for bindings (a static policy's name, no paramRef) and
// MutatingAdmissionPolicies (no paramKind). Each, in a List or alone, fails
// the whole reload.
var invalidPolicyFileCases = []invalidCase{
	{name: "a policy file holding a ConfigMap", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		return []runtime.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "bad")}}}
	}},
	{name: "a policy file holding a v1 List with a ConfigMap", plugin: cluster.StaticValidatingPolicy, raw: func(f *harness.Framework) []byte {
		return asList(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "bad")}})
	}},
	{name: "a policy file holding a v1 List with a policy whose name lacks the suffix", plugin: cluster.StaticValidatingPolicy, raw: func(f *harness.Framework) []byte {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy).Name = "bad." + f.Namespace + ".example.com"
		return asList(objs[0])
	}},
	{name: "a policy file holding a ValidatingWebhookConfiguration", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		return []runtime.Object{&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "bad")}}}
	}},
	{name: "a policy API validation refuses (no validations)", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy).Spec.Validations = nil
		// Alone: a binding to it would fail the reload by itself.
		return objs[:1]
	}},
	{name: "a binding API validation refuses (no validationActions)", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		objs[1].(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Spec.ValidationActions = nil
		return objs
	}},
	{name: "a binding whose name lacks the suffix", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		objs[1].(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Name = "bad-binding." + f.Namespace + ".example.com"
		return objs
	}},
	{name: "a binding whose policyName lacks the suffix", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		objs[1].(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Spec.PolicyName = "bad." + f.Namespace + ".example.com"
		return objs[1:]
	}},
	{name: "a binding with a paramRef", plugin: cluster.StaticValidatingPolicy, objs: func(f *harness.Framework) []runtime.Object {
		objs := staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")
		objs[1].(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Spec.ParamRef = &admissionregistrationv1.ParamRef{
			Name: "params", Namespace: f.Namespace, ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)}
		return objs
	}},
	{name: "a MutatingAdmissionPolicy with a paramKind", plugin: cluster.StaticMutatingPolicy, raw: func(f *harness.Framework) []byte {
		policy, binding := staticMutation(f, "bad", "never-"+f.Namespace, speckit.ApplyConfiguration(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`))
		policy.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
		return yamlDocs(policy, binding)
	}},
	{name: "a MutatingAdmissionPolicyBinding with a paramRef", plugin: cluster.StaticMutatingPolicy, raw: func(f *harness.Framework) []byte {
		policy, binding := staticMutation(f, "bad", "never-"+f.Namespace, speckit.ApplyConfiguration(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`))
		binding.Spec.ParamRef = &admissionregistrationv1.ParamRef{Name: "params", Namespace: f.Namespace, ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)}
		return yamlDocs(policy, binding)
	}},
}

// staticMutation is a static MutatingAdmissionPolicy with mutation and its
// binding, for ConfigMaps of the case's namespace labelled speckit.ProbeLabel=value.
func staticMutation(f *harness.Framework, short, value string, mutation mutatingpolicy.Mutation) (*mutatingpolicy.MutatingAdmissionPolicy, *mutatingpolicy.MutatingAdmissionPolicyBinding) {
	name := staticName(f, short)
	policy := &mutatingpolicy.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: mutatingpolicy.GroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: namespaceSelector(f),
				ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}},
				ResourceRules:     []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: speckit.ConfigMapRules()[0]}},
			},
			Mutations: []mutatingpolicy.Mutation{mutation},
		},
	}
	binding := &mutatingpolicy.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: mutatingpolicy.GroupVersion.String(), Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: staticName(f, short+"-binding")},
		Spec:       mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
	}
	return policy, binding
}

// staticFailingMutation is a static MutatingAdmissionPolicy (failurePolicy
// Fail) whose mutation reads a data key the probe lacks, so it denies the
// probe labelled value; it returns the key, which the denial names, and
// the file.
func staticFailingMutation(f *harness.Framework, short, value string) (string, []byte) {
	key := "static-previous-set-" + f.Namespace
	policy, binding := staticMutation(f, short, value, speckit.ApplyConfiguration(fmt.Sprintf(`Object{data: {"k": object.data[%q]}}`, key)))
	return key, yamlDocs(policy, binding)
}

// yamlDocs is objs (framework/mutatingpolicy types, TypeMeta set) as one
// multi-document YAML file.
func yamlDocs(objs ...any) []byte {
	var data []byte
	for _, o := range objs {
		doc, err := yaml.Marshal(o)
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		data = append(append(data, "---\n"...), doc...)
	}
	return data
}
