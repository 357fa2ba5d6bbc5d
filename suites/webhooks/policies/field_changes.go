package policies

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyFieldChanges = spec.Spec{
	ShortName: "PolicyFieldChanges",
	Suite:     "webhooks",
	Description: "A change to each behaviour-bearing field of a live ValidatingAdmissionPolicy (validations' expression, message, " +
		"messageExpression and reason, variables, matchConditions, matchConstraints' rules and selector, failurePolicy, " +
		"paramKind) and of its binding (validationActions, matchResources' selectors, paramRef, policyName), and its " +
		"reversal, is enforced on every apiserver replica within the policy propagation bound.",
	Features:  []features.Name{features.ValidatingAdmissionPolicy},
	Profile:   spec.Core,
	Isolation: speckit.ValidatingPolicyQuiet,
	Seed:      "002 Goals: admin needs to be able to ensure admission config will be applied within some bound",
}

// policyFieldChange is one live change of one field of the policy or the
// binding under test; restored, if set, probes the baseline once it is
// undone (the gated probe's denial otherwise).
type policyFieldChange struct {
	field    string
	policy   func(*admissionregistrationv1.ValidatingAdmissionPolicySpec)
	binding  func(*admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec)
	enforced enforce.Probe
	restored enforce.Probe
}

// probeLabelled is a CEL condition: the object carries the probe label with
// value (a CEL expression).
func probeLabelled(value string) string {
	return fmt.Sprintf("has(object.metadata.labels) && %q in object.metadata.labels && object.metadata.labels[%q] == %s", speckit.ProbeLabel, speckit.ProbeLabel, value)
}

var _ = harness.Describe(policyFieldChanges, func(f *harness.Framework) {
	ginkgo.It("each field of the policy and of its binding changed and changed back, on every replica", func(ctx ginkgo.SpecContext) {
		ar := f.Client.AdmissionregistrationV1()
		for name, forbidden := range map[string]string{"param-a": "gated", "param-b": "elsewhere"} {
			_, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, speckit.ParamSA(f.Namespace, name, forbidden, nil), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		// A ConfigMap param of the same name, for when paramKind changes.
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "param-a",
			Annotations: map[string]string{"forbidden": "gated-configmap"}}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		name, other := speckit.PolicyName(f, "fields"), speckit.PolicyName(f, "fields-other")
		message := "policy field change " + f.Namespace
		inNamespace := func(ns string) *metav1.LabelSelector {
			return &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}
		}
		// Validation 0 denies the gated probe through its param and a
		// variable; validation 1 errors on the broken probe, skipped under
		// the baseline failurePolicy Ignore.
		policySpec := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Ignore),
			ParamKind:     speckit.ParamKindSA,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules:     configMapCreates().ResourceRules,
				NamespaceSelector: inNamespace(f.Namespace),
			},
			Variables: []admissionregistrationv1.Variable{{Name: "enabled", Expression: "true"}},
			Validations: []admissionregistrationv1.Validation{
				{Expression: "!(" + probeLabelled("string(params.metadata.annotations['forbidden'])") + " && variables.enabled)", Message: message},
				{Expression: "!(" + probeLabelled("'broken'") + ") || object.metadata.labels['absent-label'] == 'x'", Message: "never shown"},
			},
		}
		bindingSpec := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			ParamRef:          &admissionregistrationv1.ParamRef{Name: "param-a", ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)},
			MatchResources:    &admissionregistrationv1.MatchResources{NamespaceSelector: inNamespace(f.Namespace), ObjectSelector: &metav1.LabelSelector{}},
		}
		for _, p := range []*admissionregistrationv1.ValidatingAdmissionPolicy{
			{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()}, Spec: policySpec},
			// other takes the same paramKind: a binding whose paramRef
			// names a param of a policy without one must be written by
			// someone who may get every resource of every group by that
			// name (kubernetes pkg/registry/admissionregistration/
			// validatingadmissionpolicybinding/authz.go), which an
			// in-cluster run's service account may not.
			{ObjectMeta: metav1.ObjectMeta{Name: other, Labels: f.Labels()}, Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: configMapCreates().ResourceRules, NamespaceSelector: inNamespace(f.Namespace)},
				ParamKind:        speckit.ParamKindSA,
				Validations:      []admissionregistrationv1.Validation{{Expression: "true"}},
			}},
		} {
			_, err = ar.ValidatingAdmissionPolicies().Create(ctx, p, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.ValidatingAdmissionPolicies().Delete, p.Name)
		}
		_, err = ar.ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()}, Spec: bindingSpec}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.ValidatingAdmissionPolicyBindings().Delete, name)

		denied := func(msg string) enforce.Probe {
			return policyProbe(f, "gated", func(err error) bool { return speckit.DeniedWith(err, msg) })
		}
		allowed := func(label string) enforce.Probe {
			return policyProbe(f, label, func(err error) bool { return err == nil })
		}
		baseline := denied(message)
		elsewhere := inNamespace(f.Namespace + "-elsewhere")
		changes := []policyFieldChange{
			{field: "validations[].expression", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Validations[0].Expression = "!(" + probeLabelled("'elsewhere'") + ")"
			}, enforced: allowed("gated")},
			{field: "validations[].message", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Validations[0].Message = "changed " + message
			}, enforced: denied("changed " + message)},
			{field: "validations[].messageExpression", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Validations[0].MessageExpression = "'from messageExpression ' + request.namespace"
			}, enforced: denied("from messageExpression " + f.Namespace)},
			{field: "validations[].reason", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Validations[0].Reason = ptr.To(metav1.StatusReasonForbidden)
			}, enforced: policyProbe(f, "gated", func(err error) bool { return apierrors.IsForbidden(err) && speckit.DeniedWith(err, message) })},
			{field: "variables[].expression", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Variables[0].Expression = "false"
			}, enforced: allowed("gated")},
			{field: "matchConditions", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "never", Expression: "false"}}
			}, enforced: allowed("gated")},
			{field: "matchConstraints.resourceRules[].resources", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.MatchConstraints.ResourceRules[0].Resources = []string{"secrets"}
			}, enforced: allowed("gated")},
			{field: "matchConstraints.namespaceSelector", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.MatchConstraints.NamespaceSelector = elsewhere
			}, enforced: allowed("gated")},
			{field: "failurePolicy", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.FailurePolicy = ptr.To(admissionregistrationv1.Fail)
			}, enforced: policyProbe(f, "broken", func(err error) bool { return speckit.DeniedWith(err, "resulted in error: no such key: absent-label") }),
				restored: allowed("broken")},
			{field: "paramKind", policy: func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			}, enforced: policyProbe(f, "gated-configmap", func(err error) bool { return speckit.DeniedWith(err, message) }),
				restored: policyProbe(f, "gated-configmap", func(err error) bool { return err == nil })},
			{field: "binding validationActions", binding: func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
				s.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}
			}, enforced: allowed("gated")},
			{field: "binding matchResources.namespaceSelector", binding: func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
				s.MatchResources.NamespaceSelector = elsewhere
			}, enforced: allowed("gated")},
			{field: "binding matchResources.objectSelector", binding: func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
				s.MatchResources.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: "elsewhere"}}
			}, enforced: allowed("gated")},
			{field: "binding paramRef.name", binding: func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
				s.ParamRef.Name = "param-b"
			}, enforced: allowed("gated")},
			{field: "binding policyName", binding: func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
				s.PolicyName = other
			}, enforced: allowed("gated")},
		}

		bound := f.Bounds.PolicyPropagation.Duration
		stats := speckit.NewLatencies("policy-field-change-propagation", bound)
		await := func(what string, p enforce.Probe) {
			perReplica, err := enforce.OnEveryReplicaSeen(ctx, time.Now(), f.Replicas, bound, f.Bounds.PollInterval.Duration, p)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s of a live ValidatingAdmissionPolicy", what)
			stats.Add(f, map[string]string{"change": what}, perReplica)
			speckit.ExpectEachWithin(perReplica, bound, what+" of a live ValidatingAdmissionPolicy")
		}
		// The controller manager writes the policy's status (type
		// checking) between a read and an update: retry on its conflicts.
		setPolicy := func(ctx context.Context, s admissionregistrationv1.ValidatingAdmissionPolicySpec) error {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cur, err := ar.ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				cur.Spec = s
				_, err = ar.ValidatingAdmissionPolicies().Update(ctx, cur, metav1.UpdateOptions{})
				return err
			})
		}
		setBinding := func(ctx context.Context, s admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) error {
			cur, err := ar.ValidatingAdmissionPolicyBindings().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Spec = s
			_, err = ar.ValidatingAdmissionPolicyBindings().Update(ctx, cur, metav1.UpdateOptions{})
			return err
		}
		await("create", baseline)
		for _, c := range changes {
			gomega.Expect(stats.Dephase(ctx, policyRefreshPeriod)).To(gomega.Succeed())
			if c.policy != nil {
				changed := *policySpec.DeepCopy()
				c.policy(&changed)
				gomega.Expect(setPolicy(ctx, changed)).To(gomega.Succeed(), "change %s", c.field)
			} else {
				changed := *bindingSpec.DeepCopy()
				c.binding(&changed)
				gomega.Expect(setBinding(ctx, changed)).To(gomega.Succeed(), "change %s", c.field)
			}
			await(c.field, c.enforced)
			gomega.Expect(stats.Dephase(ctx, policyRefreshPeriod)).To(gomega.Succeed())
			if c.policy != nil {
				gomega.Expect(setPolicy(ctx, *policySpec.DeepCopy())).To(gomega.Succeed(), "change %s back", c.field)
			} else {
				gomega.Expect(setBinding(ctx, *bindingSpec.DeepCopy())).To(gomega.Succeed(), "change %s back", c.field)
			}
			restored := c.restored
			if restored == nil {
				restored = baseline
			}
			await(c.field+" back", restored)
		}
		stats.Summarize(f)
	})
})
