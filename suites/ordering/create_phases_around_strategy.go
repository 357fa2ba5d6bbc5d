package ordering

import (
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var createPhasesAroundStrategy = spec.Spec{
	ShortName: "CreatePhasesAroundRESTStrategy",
	Suite:     "ordering",
	Description: "On a create, mutating admission sees the decoded request before the REST strategy (generateName " +
		"unresolved, no uid, creationTimestamp or generation, the client's status), validating admission sees it after " +
		"(name generated, system fields filled, status reset by PrepareForCreate, defaults applied).",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 REST flows, Create, proposed behaviour: decode request; admit.ApplyMutations; r.BeforeCreate " +
		"(strategy.PrepareForCreate, FillInObjectMetaSystemFields, GenerateName); r.Validate; admit.Validate",
	Manifests: []string{"ordering/deployment.yaml"},
}

// Seed steps checked: the proposed create flow (decode request;
// admit.ApplyMutations; r.BeforeCreate; r.Validate; admit.Validate), which
// kube-apiserver 1.36 follows: the create handler calls mutating admission,
// then the registry's Create runs BeforeCreate (PrepareForCreate,
// FillObjectMetaSystemFields, GenerateName, strategy validation) and calls
// validating admission before storing. Defaults are the exception to "after
// the strategy": kube-apiserver applies them while decoding, so mutating
// admission sees them too, and the case asserts that.
var _ = harness.Describe(createPhasesAroundStrategy, func(f *harness.Framework) {
	ginkgo.It("calls mutating admission before r.BeforeCreate and validating admission after it", func(ctx ginkgo.SpecContext) {
		deployments := rule("apps", ops(opCreate), "deployments")
		v, err := f.RegisterValidating(ctx, "validate", harness.Hook{Name: "after", Rules: deployments, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "before", Rules: deployments, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var d appsv1.Deployment
		gomega.Expect(fixture(f, "ordering/deployment.yaml", &d, nonce)).To(gomega.Succeed())
		stored, err := f.Client.AppsV1().Deployments(f.Namespace).Create(ctx, &d, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		mutatingPath, validatingPath := m.Hooks["before"].Path, v.Hooks["after"].Path
		all, err := requestCalls(ctx, f, nonce, mutatingPath, validatingPath)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		mc, vc := all.onPath(mutatingPath), all.onPath(validatingPath)
		gomega.Expect(mc).To(gomega.HaveLen(1), "mutating admission must be called once")
		gomega.Expect(vc).To(gomega.HaveLen(1), "validating admission must be called once")
		var mutating, validating appsv1.Deployment
		gomega.Expect(mc[0].DecodeObject(&mutating)).To(gomega.Succeed())
		gomega.Expect(vc[0].DecodeObject(&validating)).To(gomega.Succeed())

		ginkgo.By("mutating admission sees the decoded request: before GenerateName and FillInObjectMetaSystemFields")
		gomega.Expect(mutating.Name).To(gomega.BeEmpty(), "generateName must not be resolved yet")
		gomega.Expect(mutating.GenerateName).To(gomega.Equal(d.GenerateName))
		gomega.Expect(mutating.UID).To(gomega.BeEmpty(), "no uid yet")
		gomega.Expect(mutating.CreationTimestamp.IsZero()).To(gomega.BeTrue(), "no creationTimestamp yet")

		ginkgo.By("mutating admission sees the decoded request: before strategy.PrepareForCreate")
		gomega.Expect(mutating.Generation).To(gomega.BeZero(), "PrepareForCreate sets generation 1; it must not have run")
		gomega.Expect(mutating.Status.ObservedGeneration).To(gomega.Equal(d.Status.ObservedGeneration),
			"PrepareForCreate drops the client's status; it must not have run")

		ginkgo.By("validating admission sees the object after r.BeforeCreate")
		gomega.Expect(strings.HasPrefix(validating.Name, d.GenerateName) && len(validating.Name) > len(d.GenerateName)).To(gomega.BeTrue(),
			"the name must be generated from %q, got %q", d.GenerateName, validating.Name)
		gomega.Expect(validating.Name).To(gomega.Equal(stored.Name), "validators must see the name that is stored")
		gomega.Expect(validating.UID).To(gomega.Equal(stored.UID), "validators must see the uid that is stored")
		gomega.Expect(validating.UID).NotTo(gomega.BeEmpty())
		gomega.Expect(validating.CreationTimestamp.IsZero()).To(gomega.BeFalse(), "creationTimestamp must be filled in")
		gomega.Expect(validating.Generation).To(gomega.Equal(int64(1)), "PrepareForCreate must have set generation 1")
		gomega.Expect(validating.Status).To(gomega.Equal(appsv1.DeploymentStatus{}), "PrepareForCreate must have dropped the client's status")

		ginkgo.By("defaults: kube-apiserver applies them when it decodes the request, so both phases see them")
		for phase, obj := range map[string]appsv1.Deployment{"mutating": mutating, "validating": validating} {
			gomega.Expect(obj.Spec.Strategy.Type).To(gomega.Equal(appsv1.RollingUpdateDeploymentStrategyType), "%s admission: defaulted strategy", phase)
			gomega.Expect(obj.Spec.RevisionHistoryLimit).NotTo(gomega.BeNil(), "%s admission: defaulted revisionHistoryLimit", phase)
		}

		gomega.Expect(mc[0].RespondedAt.Before(vc[0].ReceivedAt)).To(gomega.BeTrue(), "mutating admission must finish before validating admission starts")
	})
})
