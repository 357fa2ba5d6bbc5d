package speckit

import (
	"context"

	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/audit"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// ExpectDefaultedContainer asserts the defaults of a container the client
// (or a patch) left unset, for an image with a tag other than latest.
func ExpectDefaultedContainer(c corev1.Container, where string) {
	gomega.ExpectWithOffset(1, c.Name).To(gomega.Equal("added"))
	gomega.ExpectWithOffset(1, c.TerminationMessagePath).To(gomega.Equal(corev1.TerminationMessagePathDefault), "terminationMessagePath %s", where)
	gomega.ExpectWithOffset(1, c.TerminationMessagePolicy).To(gomega.Equal(corev1.TerminationMessageReadFile), "terminationMessagePolicy %s", where)
	gomega.ExpectWithOffset(1, c.ImagePullPolicy).To(gomega.Equal(corev1.PullIfNotPresent), "imagePullPolicy of a tagged image %s", where)
}

// CreateAnnotations waits for the audit event of the create of the
// ConfigMap name in the spec's namespace and returns its annotations.
func CreateAnnotations(ctx context.Context, f *harness.Framework, name string) map[string]string {
	logs, ok := f.Env.Cluster.(cluster.AuditLog)
	gomega.ExpectWithOffset(1, ok).To(gomega.BeTrue(), "a cluster declaring AuditLog must expose its audit logs")
	var out map[string]string
	gomega.EventuallyWithOffset(1, ctx, func() (int, error) {
		events, err := audit.Events(logs.AuditLogPaths(), audit.ForObject("create", "configmaps", f.Namespace, name))
		if len(events) > 0 {
			out = events[0].Annotations
		}
		return len(events), err
	}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
		Should(gomega.Equal(1), "the create of %s must have one ResponseComplete audit event", name)
	return out
}

// GatedDeployment is a Deployment of the spec's namespace with labels whose
// pods are never scheduled, so scaling it places nothing on any node.
func GatedDeployment(f *harness.Framework, labels map[string]string) *appsv1.Deployment {
	podLabels := map[string]string{"app": "review-" + rand.String(5)}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "review-" + rand.String(5), Namespace: f.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: podLabels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: corev1.PodSpec{
				SchedulingGates: []corev1.PodSchedulingGate{{Name: "admission-conformance.io/never-scheduled"}},
				Containers:      []corev1.Container{{Name: "c", Image: "registry.invalid/admission-conformance/never-pulled"}}}}},
	}
}

// AllOperations is a rule for every operation on resources of group/version.
func AllOperations(group, version string, resources ...string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version},
			Resources: resources, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

// WhoAmI is the user the apiserver authenticates client as, asked of the
// apiserver itself (SelfSubjectReview), so the comparison holds on every
// provider whatever its credentials.
func WhoAmI(ctx context.Context, client kubernetes.Interface) authenticationv1.UserInfo {
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "SelfSubjectReview")
	return review.Status.UserInfo
}
