package review

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var dryRunAndSideEffects = spec.Spec{
	ShortName: "DryRunAndSideEffects",
	Suite:     "webhooks",
	Description: "A dry-run request reaches webhooks declaring sideEffects None or NoneOnDryRun with dryRun=true, " +
		"and nothing is stored; v1 refuses webhooks declaring sideEffects Unknown or Some, the classes that " +
		"would have rejected dry runs.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "002 ExternalAdmissionHook: the webhook cares about an operation if it matches any rule (dry runs included)",
}

var _ = harness.Describe(dryRunAndSideEffects, func(f *harness.Framework) {
	for _, class := range []admissionregistrationv1.SideEffectClass{admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.SideEffectClassNoneOnDryRun} {
		for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
			ginkgo.It(fmt.Sprintf("%s webhook with sideEffects %s sees dryRun=true and nothing is stored", phase, class), func(ctx ginkgo.SpecContext) {
				behaviour := fakewebhook.Behaviour{Action: fakewebhook.Allow}
				if phase == fakewebhook.Mutating {
					behaviour = fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey}
				}
				reg, err := speckit.Register(ctx, f, phase, harness.Hook{Name: "observe", SideEffects: ptr.To(class), Behaviour: behaviour})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				cm := speckit.Subject(f.Namespace)
				returned, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				calls := speckit.CallsTo(f, reg.Hooks["observe"], f.Namespace, cm.Name)
				gomega.Expect(calls).To(gomega.HaveLen(1), "the dry run must reach the webhook once")
				gomega.Expect(calls[0].DryRun).To(gomega.BeTrue(), "the webhook must be told it is a dry run")
				if phase == fakewebhook.Mutating {
					gomega.Expect(returned.Data).To(gomega.HaveKey("mutated"), "a dry run returns the object as admission left it")
				}
				_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
				gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a dry run must store nothing, got %v", err)
			})
		}
	}

	ginkgo.It("admissionregistration.k8s.io/v1 refuses sideEffects Unknown and Some", func(ctx ginkgo.SpecContext) {
		for _, class := range []admissionregistrationv1.SideEffectClass{admissionregistrationv1.SideEffectClassUnknown, admissionregistrationv1.SideEffectClassSome} {
			_, err := speckit.Register(ctx, f, fakewebhook.Validating, harness.Hook{Name: "unsafe-" + string(class), SideEffects: ptr.To(class)})
			gomega.Expect(err).To(gomega.HaveOccurred(), "sideEffects %s must be refused", class)
			gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "sideEffects %s must be refused as invalid (422), got %v", class, err)
		}
	})
})
