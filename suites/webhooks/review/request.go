package review

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var reviewRequestContent = spec.Spec{
	ShortName: "ReviewRequestContent",
	Suite:     "webhooks",
	Description: "The AdmissionReview request of every operation (CREATE with generateName and dry run, UPDATE, the four " +
		"patch types, an apply that creates, DELETE, CONNECT) carries its uid, kind, resource, subResource, request*, " +
		"name, namespace, operation, the requesting user, object, oldObject (UPDATE and DELETE only) and the options " +
		"of the operation performed, in mutating and validating admission alike.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "001 Attributes: GetName (empty on a CREATE that relies on generateName), GetNamespace, GetResource, " +
		"GetSubresource, GetOperation, GetObject, GetOldObject (only populated for UPDATE), GetKind, GetUserInfo",
}

var (
	configMapKind     = metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	configMapResource = metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

var _ = harness.Describe(reviewRequestContent, func(f *harness.Framework) {
	// decodeCM decodes a raw object or oldObject as a ConfigMap.
	decodeCM := func(c fakewebhook.Call, old bool) corev1.ConfigMap {
		var cm corev1.ConfigMap
		decode, field := c.DecodeObject, "object"
		if old {
			decode, field = c.DecodeOldObject, "oldObject"
		}
		gomega.ExpectWithOffset(1, decode(&cm)).To(gomega.Succeed(), "%s %s: %s must be the ConfigMap", c.Phase, c.Operation, field)
		return cm
	}

	ginkgo.It("CREATE with generateName: name empty in mutating, generated in validating; CreateOptions; dry run", func(ctx ginkgo.SpecContext) {
		hooks := observers(ctx, f, speckit.AllOperations("", "v1", "configmaps"))
		me := speckit.WhoAmI(ctx, f.Client)
		cm := speckit.Subject(f.Namespace)
		cm.Name, cm.GenerateName = "", "gen-"
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{FieldManager: "ac-create"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		calls := onePerPhase(f, hooks, "the create", withOptions("ac-create"))
		gomega.Expect(calls[fakewebhook.Mutating].UID).NotTo(gomega.Equal(calls[fakewebhook.Validating].UID),
			"uid identifies one call (request and response), not the user's request: two webhooks get two uids")
		for phase, c := range calls {
			expectTarget(c, "CREATE", configMapKind, configMapResource, "")
			gomega.Expect(c.Namespace).To(gomega.Equal(f.Namespace), "%s CREATE: namespace", phase)
			gomega.Expect(c.DryRun).To(gomega.BeFalse(), "%s CREATE: dryRun of a request that is not a dry run", phase)
			gomega.Expect(absent(c.OldObject)).To(gomega.BeTrue(), "%s CREATE: oldObject is only for UPDATE and DELETE, got %s", phase, c.OldObject)
			expectOptions(c, "CreateOptions", map[string]any{"fieldManager": "ac-create"})
			expectUser(c, me)
			obj := decodeCM(c, false)
			gomega.Expect(obj.Data).To(gomega.Equal(cm.Data), "%s CREATE: object.data", phase)
			gomega.Expect(obj.GenerateName).To(gomega.Equal("gen-"), "%s CREATE: object.metadata.generateName", phase)
		}
		gomega.Expect(calls[fakewebhook.Mutating].Name).To(gomega.BeEmpty(),
			"mutating admission runs before the name is generated: name must be empty (seed 001 GetName)")
		gomega.Expect(calls[fakewebhook.Validating].Name).To(gomega.Equal(created.Name),
			"validating admission runs after the name is generated: name must be the generated name")
		gomega.Expect(decodeCM(calls[fakewebhook.Validating], false).Name).To(gomega.Equal(created.Name), "validating CREATE: object.metadata.name")

		dry := speckit.Subject(f.Namespace)
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, dry, metav1.CreateOptions{FieldManager: "ac-dry", DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for phase, c := range onePerPhase(f, hooks, "the dry-run create", withOptions("ac-dry")) {
			gomega.Expect(c.DryRun).To(gomega.BeTrue(), "%s CREATE: dryRun", phase)
			gomega.Expect(c.Name).To(gomega.Equal(dry.Name), "%s CREATE: name given by the client", phase)
			expectOptions(c, "CreateOptions", map[string]any{"fieldManager": "ac-dry", "dryRun": []string{"All"}})
		}
	})

	ginkgo.It("UPDATE: object is the new object, oldObject the stored one; UpdateOptions", func(ctx ginkgo.SpecContext) {
		hooks := observers(ctx, f, speckit.AllOperations("", "v1", "configmaps"))
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		changed := stored.DeepCopy()
		changed.Data = map[string]string{"submitted": "by an update"}
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, changed, metav1.UpdateOptions{FieldManager: "ac-update"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for phase, c := range onePerPhase(f, hooks, "the update", withOptions("ac-update")) {
			expectTarget(c, "UPDATE", configMapKind, configMapResource, "")
			gomega.Expect(c.Name).To(gomega.Equal(stored.Name), "%s UPDATE: name", phase)
			expectOptions(c, "UpdateOptions", map[string]any{"fieldManager": "ac-update"})
			gomega.Expect(decodeCM(c, false).Data).To(gomega.Equal(changed.Data), "%s UPDATE: object is the new object", phase)
			old := decodeCM(c, true)
			gomega.Expect(old.Data).To(gomega.Equal(stored.Data), "%s UPDATE: oldObject is the stored object", phase)
			gomega.Expect(old.ResourceVersion).To(gomega.Equal(stored.ResourceVersion), "%s UPDATE: oldObject.metadata.resourceVersion", phase)
		}
	})

	patches := []struct {
		pt   types.PatchType
		body string
	}{
		{types.JSONPatchType, `[{"op":"replace","path":"/data/submitted","value":"by a patch"}]`},
		{types.MergePatchType, `{"data":{"submitted":"by a patch"}}`},
		{types.StrategicMergePatchType, `{"data":{"submitted":"by a patch"}}`},
		{types.ApplyPatchType, `{"apiVersion":"v1","kind":"ConfigMap","data":{"submitted":"by a patch"}}`},
	}
	for _, p := range patches {
		ginkgo.It(fmt.Sprintf("PATCH %s of an existing object: UPDATE with the patched object, the stored oldObject and UpdateOptions", p.pt), func(ctx ginkgo.SpecContext) {
			hooks := observers(ctx, f, speckit.AllOperations("", "v1", "configmaps"))
			stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			manager := "ac-patch-" + rand.String(5)
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Patch(ctx, stored.Name, p.pt, []byte(p.body), metav1.PatchOptions{FieldManager: manager, Force: forceFor(p.pt)})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			for phase, c := range onePerPhase(f, hooks, "the patch", withOptions(manager)) {
				expectTarget(c, "UPDATE", configMapKind, configMapResource, "")
				gomega.Expect(c.Name).To(gomega.Equal(stored.Name), "%s PATCH: name", phase)
				expectOptions(c, "UpdateOptions", map[string]any{"fieldManager": manager})
				gomega.Expect(decodeCM(c, false).Data).To(gomega.HaveKeyWithValue("submitted", "by a patch"), "%s PATCH: object is the patched object", phase)
				gomega.Expect(decodeCM(c, true).Data).To(gomega.Equal(stored.Data), "%s PATCH: oldObject is the stored object", phase)
			}
		})
	}

	ginkgo.It("PATCH (apply) of a missing object: CREATE with CreateOptions and no oldObject", func(ctx ginkgo.SpecContext) {
		hooks := observers(ctx, f, speckit.AllOperations("", "v1", "configmaps"))
		name := "applied-" + rand.String(5)
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"submitted":"by apply"}}`, name)
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Patch(ctx, name, types.ApplyPatchType, []byte(body), metav1.PatchOptions{FieldManager: "ac-apply"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for phase, c := range onePerPhase(f, hooks, "the apply", withOptions("ac-apply")) {
			expectTarget(c, "CREATE", configMapKind, configMapResource, "")
			gomega.Expect(c.Name).To(gomega.Equal(name), "%s apply-create: name", phase)
			expectOptions(c, "CreateOptions", map[string]any{"fieldManager": "ac-apply"})
			gomega.Expect(absent(c.OldObject)).To(gomega.BeTrue(), "%s apply-create: no oldObject, got %s", phase, c.OldObject)
			gomega.Expect(decodeCM(c, false).Data).To(gomega.HaveKeyWithValue("submitted", "by apply"), "%s apply-create: object", phase)
		}
	})

	ginkgo.It("DELETE: no object, oldObject is the object deleted; DeleteOptions as sent", func(ctx ginkgo.SpecContext) {
		hooks := observers(ctx, f, speckit.AllOperations("", "v1", "configmaps"))
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		background := metav1.DeletePropagationBackground
		err = f.Client.CoreV1().ConfigMaps(f.Namespace).Delete(ctx, stored.Name, metav1.DeleteOptions{
			PropagationPolicy: &background, Preconditions: metav1.NewUIDPreconditions(string(stored.UID))})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for phase, c := range onePerPhase(f, hooks, "the delete", func(c fakewebhook.Call) bool { return c.Operation == "DELETE" && c.Name == stored.Name }) {
			expectTarget(c, "DELETE", configMapKind, configMapResource, "")
			gomega.Expect(c.Namespace).To(gomega.Equal(f.Namespace), "%s DELETE: namespace", phase)
			gomega.Expect(absent(c.Object)).To(gomega.BeTrue(), "%s DELETE: no object, got %s", phase, c.Object)
			gomega.Expect(decodeCM(c, true).UID).To(gomega.Equal(stored.UID), "%s DELETE: oldObject is the object deleted", phase)
			expectOptions(c, "DeleteOptions", map[string]any{"propagationPolicy": "Background", "preconditions": map[string]any{"uid": string(stored.UID)}})
		}
	})

	ginkgo.It("CONNECT: the object is the connect options, no oldObject, no options", func(ctx ginkgo.SpecContext) {
		// CONNECT alone: the harness keeps marker objects away from hooks
		// matching CREATE by an object selector, which no CONNECT matches.
		connects := speckit.AllOperations("", "v1", "pods/exec")
		connects[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Connect}
		hooks := observers(ctx, f, connects)
		pod := speckit.PendingPod(f.Namespace, "connect-"+rand.String(5))
		pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "admission-conformance.io/never-scheduled"}}
		_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Admission comes before connecting, and a pod without a node cannot
		// be connected to: the request fails after admission.
		err = f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("pods").Name(pod.Name).SubResource("exec").
			Param("container", "c").Param("command", "true").Param("stdout", "true").Do(ctx).Error()
		gomega.Expect(err).To(gomega.HaveOccurred(), "an exec into a pod without a node cannot succeed")
		for phase, c := range onePerPhase(f, hooks, "the exec", func(c fakewebhook.Call) bool { return c.Name == pod.Name }) {
			expectTarget(c, "CONNECT", metav1.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"},
				metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, "exec")
			var opts corev1.PodExecOptions
			gomega.Expect(c.DecodeObject(&opts)).To(gomega.Succeed(), "%s CONNECT: the object is the connect options", phase)
			gomega.Expect(opts.Command).To(gomega.Equal([]string{"true"}), "%s CONNECT: object.command", phase)
			gomega.Expect(absent(c.OldObject)).To(gomega.BeTrue(), "%s CONNECT: no oldObject, got %s", phase, c.OldObject)
			gomega.Expect(absent(c.Options)).To(gomega.BeTrue(), "%s CONNECT: no options, got %s", phase, c.Options)
		}
	})
})

// forceFor is the force flag a patch needs: apply takes over fields another
// manager owns; the other patch types must not set it.
func forceFor(pt types.PatchType) *bool {
	if pt == types.ApplyPatchType {
		force := true
		return &force
	}
	return nil
}
