package nodeadmit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Node features as upstream names them in node.status.declaredFeatures
// (k8s.io/component-helpers/nodedeclaredfeatures/features); a kubelet
// declares one when its feature gate of the same name is on.
const (
	// podLevelResizeFeature is needed by a resize that changes a pod's
	// pod-level resources (spec.resources).
	podLevelResizeFeature = "InPlacePodLevelResourcesVerticalScaling"
	// restartAllContainersFeature is needed to run a pod with a container
	// restart rule whose action is RestartAllContainers.
	restartAllContainersFeature = "RestartAllContainersOnContainerExits"
)

// declaredFeaturesFeatures are what the declared-features specs need.
var declaredFeaturesFeatures = []features.Name{features.NodeAdmission, features.NodeDeclaredFeatures}

// seedResize is the seed flow the resize specs check: a compiled validating
// plugin (NodeDeclaredFeatureValidator, PodResizeValidator) runs after the
// strategy's validation and refuses the update before it is stored.
const seedResize = "000 REST flows, Update, proposed behaviour: r.ValidateUpdate (strategy validation), then admit.Validate, " +
	"then r.Update: a validating admission plugin's refusal leaves the object unchanged"

// changesDeclaredFeatures: the apiserver judges every resize of every pod on
// the node by its status.declaredFeatures, the scheduler places pods by it,
// and other specs pick their node by it.
var changesDeclaredFeatures = spec.Isolation{Exclusive: []string{spec.NodesState},
	Reason: "declares a feature in a node's status.declaredFeatures that its kubelet lacks, which the apiserver, the scheduler and other cases read"}

// declaredFeatures returns node's status.declaredFeatures.
func declaredFeatures(ctx context.Context, f *harness.Framework, node string) []string {
	n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return n.Status.DeclaredFeatures
}

// nodeLacking returns a node for built-in cases whose status.declaredFeatures
// lacks feature, and what it declares; the case is not supported where every
// node declares it. With publishing, the node must declare something: a
// kubelet that publishes no feature at all predates NodeDeclaredFeatures
// (1.37 kubelets always declare the locked-on ExtendWebSocketsToKubelet), so
// nothing can be expected of its own check.
func nodeLacking(ctx context.Context, f *harness.Framework, feature string, publishing bool) (string, []string) {
	// The worker's own node first (harness.Env.NodeSlot, as
	// nodedecision.NodeWith picks it): beside this spec another holding
	// the nodes state runs on another node of the embedded cluster's, which
	// are alike, so the first node lacking the feature is the worker's own.
	var candidates []string
	for _, n := range f.Env.Cluster.Nodes() {
		if n.Capabilities.Has(features.NodeAdmission) {
			candidates = append(candidates, n.Name)
		}
	}
	if slot := f.Env.NodeSlot; slot > 0 && slot < len(candidates) {
		candidates = append(candidates[slot:], candidates[:slot]...)
	}
	for _, name := range candidates {
		declared := declaredFeatures(ctx, f, name)
		if !slices.Contains(declared, feature) && (!publishing || len(declared) > 0) {
			return name, declared
		}
	}
	ginkgo.Skip(notSupported(fmt.Sprintf("no node lacks %s in status.declaredFeatures (with any feature declared: %t); "+
		"every node's kubelet declares it (its feature gate is on); the embedded cluster's hollow nodes run with the gate off", feature, publishing)))
	return "", nil
}

// setDeclaredFeatures replaces node's status.declaredFeatures (a sorted list,
// which the API requires) as the node's own status update would.
func setDeclaredFeatures(ctx context.Context, f *harness.Framework, node string, declared []string) error {
	sorted := slices.Sorted(slices.Values(declared))
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"declaredFeatures": sorted}})
	if err != nil {
		return err
	}
	_, err = f.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("node %s: set status.declaredFeatures to %v: %w", node, sorted, err)
	}
	return nil
}

// runningPod creates pod and expects its node to run it: a resize is
// judged against a bound, running pod, as a real one would be.
func runningPod(ctx context.Context, f *harness.Framework, pod *corev1.Pod) *corev1.Pod {
	d, err := nodedecision.Decide(ctx, f, pod)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(d.Admitted).To(gomega.BeTrue(), "node %s rejected pod %s (%s: %s)",
		pod.Spec.NodeName, pod.Name, d.Pod.Status.Reason, d.Pod.Status.Message)
	return d.Pod
}

// resize asks for new resources through the pods/resize subresource, as
// kubectl patch --subresource resize does: spec holds the part of
// pod.spec to change (a strategic merge patch).
func resize(ctx context.Context, f *harness.Framework, pod *corev1.Pod, spec map[string]any) (*corev1.Pod, error) {
	return resizeWith(ctx, f, pod, spec, metav1.PatchOptions{})
}

// resizeDryRun is resize with dryRun=All: admission judges it, nothing
// changes, so a probe may repeat it until an informer catches up.
func resizeDryRun(ctx context.Context, f *harness.Framework, pod *corev1.Pod, spec map[string]any) (*corev1.Pod, error) {
	return resizeWith(ctx, f, pod, spec, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
}

func resizeWith(ctx context.Context, f *harness.Framework, pod *corev1.Pod, spec map[string]any, options metav1.PatchOptions) (*corev1.Pod, error) {
	patch, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		return nil, err
	}
	return f.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, options, "resize")
}

// expectForbidden checks that err is the apiserver's 403 Forbidden and
// returns it.
func expectForbidden(err error) *apierrors.StatusError {
	var status *apierrors.StatusError
	gomega.Expect(errors.As(err, &status)).To(gomega.BeTrue(), "want an API status error, got %v", err)
	gomega.Expect(status.ErrStatus.Code).To(gomega.Equal(int32(http.StatusForbidden)), "HTTP code (%v)", err)
	gomega.Expect(status.ErrStatus.Reason).To(gomega.Equal(metav1.StatusReasonForbidden), "reason (%v)", err)
	return status
}

// cpuRequest is a resources stanza asking for cpu.
func cpuRequest(cpu string) map[string]any {
	return map[string]any{"requests": map[string]any{string(corev1.ResourceCPU): cpu}}
}
