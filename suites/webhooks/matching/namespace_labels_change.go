package matching

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var namespaceLabelChange = spec.Spec{
	ShortName: "NamespaceLabelChangeSelection",
	Suite:     "webhooks",
	Description: "A webhook's namespaceSelector follows the namespace's current labels: a label added to a namespace " +
		"selects its objects, and a label removed deselects them, on every apiserver replica (within the object-state bound: " +
		"no document bounds it more tightly).",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "002 ExternalAdmissionHook: the webhook cares about an operation only where its rules (and scope) match; admissionregistration.k8s.io/v1 namespaceSelector",
}

var _ = harness.Describe(namespaceLabelChange, func(f *harness.Framework) {
	ginkgo.It("a label added to the namespace selects it, a label removed deselects it, on every replica within the bound", func(ctx ginkgo.SpecContext) {
		message := "namespace labels seen " + f.Namespace
		scope := map[string]string{speckit.ProbeLabel: "ns-labels-" + f.Namespace}
		_, err := f.RegisterValidating(ctx, "ns-labels", harness.Hook{Name: "deny",
			Behaviour:         fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: message},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{namespaceSelected: f.Namespace}},
			ObjectSelector:    &metav1.LabelSelector{MatchLabels: scope}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		// denied probes one replica with a dry-run create of a ConfigMap the
		// webhook's objectSelector selects; want says whether the
		// namespaceSelector should select the namespace now.
		probe := func(want bool) enforce.Probe {
			return func(ctx context.Context, config *rest.Config) (bool, error) {
				client, err := kubernetes.NewForConfig(config)
				if err != nil {
					return false, err
				}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "ns-labels-", Namespace: f.Namespace, Labels: scope}}
				_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if err != nil && !strings.Contains(err.Error(), message) {
					return false, err
				}
				return (err != nil) == want, nil
			}
		}
		_, err = enforce.OnEveryReplica(ctx, time.Now(), f.Replicas, 0, f.Bounds.PollInterval.Duration, probe(false))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the namespace does not carry the label yet: the webhook must not be called")

		// No document bounds how soon a namespace's labels reach admission
		// (the seed's 1 s is for configuration changes): an object-state
		// wait, so a namespaceSelector that never sees the change fails,
		// and the time is recorded.
		bound := f.Bounds.ObjectState.Duration
		namespaces := f.Client.CoreV1().Namespaces()
		for _, step := range []struct {
			change string
			patch  string
			want   bool
		}{
			{"label added", fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, namespaceSelected, f.Namespace), true},
			{"label removed", fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, namespaceSelected), false},
		} {
			_, err := namespaces.Patch(ctx, f.Namespace, types.MergePatchType, []byte(step.patch), metav1.PatchOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), step.change)
			changed := time.Now()
			perReplica, err := enforce.OnEveryReplicaSeen(ctx, changed, f.Replicas, bound, f.Bounds.PollInterval.Duration, probe(step.want))
			for replica, seen := range perReplica {
				speckit.Within(f, "namespace-label-change-selection", seen.After, 0, bound, map[string]string{"change": step.change, "replica": fmt.Sprint(replica)})
			}
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: the namespaceSelector must follow the namespace's labels within %s", step.change, bound)
			speckit.ExpectEachWithin(perReplica, bound, step.change+": the namespaceSelector following the labels")
		}
	})
})
