package initializers

import (
	"encoding/json"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/discovery"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var initializersAPIRemoved = spec.Spec{
	ShortName: "InitializersAPIRemoved",
	Suite:     "initializers",
	Description: "The alpha initializers API stays removed: no Kubernetes API group serves an InitializerConfiguration, " +
		"and metadata.initializers is an unknown field (rejected under strict field validation, dropped otherwise).",
	Profile: spec.Core,
	Seed: "002 Specification: the InitializerConfiguration schema (alpha in 1.7, removed upstream in 1.14; " +
		"metadata.initializers removed in 1.16)",
	Isolation: usesInitializers,
}

var _ = harness.Describe(initializersAPIRemoved, func(f *harness.Framework) {
	ginkgo.It("serves no InitializerConfiguration in any Kubernetes API group", func(ctx ginkgo.SpecContext) {
		_, lists, err := f.Client.Discovery().ServerGroupsAndResources()
		if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "discovery")
		}
		gomega.Expect(lists).NotTo(gomega.BeEmpty(), "discovery lists no API group at all")
		for _, l := range lists {
			group, _, _ := strings.Cut(l.GroupVersion, "/")
			if strings.Contains(l.GroupVersion, "/") && !strings.HasSuffix(group, "k8s.io") {
				continue // not a Kubernetes group (the reference implementation's CRD serves the kind elsewhere)
			}
			for _, r := range l.APIResources {
				gomega.Expect(r.Kind).NotTo(gomega.Equal("InitializerConfiguration"), "%s serves %s", l.GroupVersion, r.Name)
				gomega.Expect(r.Name).NotTo(gomega.Equal("initializerconfigurations"), "%s serves %s", l.GroupVersion, r.Name)
			}
		}
		// The version the alpha API was served at answers 404.
		err = f.Client.CoreV1().RESTClient().Get().AbsPath("/apis/admissionregistration.k8s.io/v1alpha1/initializerconfigurations").Do(ctx).Error()
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "GET admissionregistration.k8s.io/v1alpha1 initializerconfigurations: want 404, got %v", err)
	})

	ginkgo.It("rejects metadata.initializers as an unknown field under strict field validation, and drops it otherwise", func(ctx ginkgo.SpecContext) {
		name := "initializers-" + rand.String(5)
		body, err := json.Marshal(map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "initializers": map[string]any{"pending": []any{map[string]any{"name": gate(f, "legacy")}}}},
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		post := func(validation string) error {
			return f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("configmaps").
				Param("fieldValidation", validation).SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Error()
		}
		err = post("Strict")
		gomega.Expect(apierrors.IsBadRequest(err)).To(gomega.BeTrue(), "strict field validation: want 400 BadRequest, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring(`unknown field "metadata.initializers"`))

		err = post("Ignore")
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "without strict validation the unknown field is dropped, not an error")
		stored, err := f.Client.CoreV1().RESTClient().Get().Namespace(f.Namespace).Resource("configmaps").Name(name).DoRaw(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var obj struct {
			Metadata map[string]json.RawMessage `json:"metadata"`
		}
		gomega.Expect(json.Unmarshal(stored, &obj)).To(gomega.Succeed())
		gomega.Expect(obj.Metadata).NotTo(gomega.HaveKey("initializers"), "the stored object keeps metadata.initializers")
	})
})
