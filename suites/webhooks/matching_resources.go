package webhooks

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var matchingResources = spec.Spec{
	ShortName: "MatchingResourcesAndWildcards",
	Suite:     "webhooks",
	Description: "Rules match API groups, versions and resources with the seed's wildcards: 'pods' is pods only, " +
		"'pods/*' every pod subresource (and, in kube-apiserver, pods itself), '*/scale' every scale subresource, " +
		"'*' every resource but no subresource, '*/*' everything.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "002 Rule.Resources: 'pods' means pods, 'pods/log' the log subresource of pods, '*' all resources but " +
		"not subresources, 'pods/*' all subresources of pods, '*/scale' all scale subresources, '*/*' all resources and their subresources",
	Isolation: spec.Isolation{Shares: []string{spec.NodesState},
		Reason: "creates a pod without a scheduling gate, which the scheduler binds to one of the harness's nodes"},
}

func resourceRule(groups []string, resources ...string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"*"},
			Resources: resources, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

var _ = harness.Describe(matchingResources, func(f *harness.Framework) {
	ginkgo.It("each wildcard matches what the seed says and nothing more", func(ctx ginkgo.SpecContext) {
		all := []string{"*"}
		reg, err := f.RegisterValidating(ctx, "resources",
			harness.Hook{Name: "pods", Behaviour: allow(), Rules: resourceRule([]string{""}, "pods")},
			harness.Hook{Name: "pods-sub", Behaviour: allow(), Rules: resourceRule([]string{""}, "pods/*")},
			harness.Hook{Name: "any-scale", Behaviour: allow(), Rules: resourceRule(all, "*/scale")},
			harness.Hook{Name: "any", Behaviour: allow(), Rules: resourceRule(all, "*")},
			harness.Hook{Name: "any-any", Behaviour: allow(), Rules: resourceRule(all, "*/*")},
			harness.Hook{Name: "apps-any", Behaviour: allow(), Rules: resourceRule([]string{"apps"}, "*")},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		pod, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pendingPod(f.Namespace, "wildcards"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// The scheduler (and a node, where there is one) writes the pod's
		// status too: update the latest version, again on a conflict.
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			latest, err := f.Client.CoreV1().Pods(f.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			latest.Status.Conditions = append(latest.Status.Conditions, corev1.PodCondition{Type: "admission-conformance.io/probe", Status: corev1.ConditionTrue})
			_, err = f.Client.CoreV1().Pods(f.Namespace).UpdateStatus(ctx, latest, metav1.UpdateOptions{})
			return err
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		cm, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		deployment := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "wildcards", Namespace: f.Namespace},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "wildcards"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "wildcards"}},
					Spec:       pendingPod(f.Namespace, "template").Spec,
				},
			},
		}
		_, err = f.Client.AppsV1().Deployments(f.Namespace).Create(ctx, deployment, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.Client.AppsV1().Deployments(f.Namespace).UpdateScale(ctx, deployment.Name, &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: deployment.Name, Namespace: f.Namespace},
			Spec:       autoscalingv1.ScaleSpec{Replicas: 0},
		}, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		requests := map[string]request{
			"pod":        {"CREATE", "pods", f.Namespace, pod.Name, ""},
			"pod-status": {"UPDATE", "pods", f.Namespace, pod.Name, "status"},
			"configmap":  {"CREATE", "configmaps", f.Namespace, cm.Name, ""},
			"deployment": {"CREATE", "deployments", f.Namespace, deployment.Name, ""},
			"scale":      {"UPDATE", "deployments", f.Namespace, deployment.Name, "scale"},
		}
		expectReach(f, reg, requests, map[string][]string{
			"pods": {"pod"},
			// The seed says 'pods/*' means all subresources of pods.
			// kube-apiserver's matcher (admission/plugin/webhook/predicates/
			// rules) treats a "*" subresource as also matching none, so
			// 'pods/*' matches pods itself as well: this pins that.
			"pods-sub":  {"pod", "pod-status"},
			"any-scale": {"scale"},
			"any":       {"pod", "configmap", "deployment"},
			"any-any":   {"pod", "pod-status", "configmap", "deployment", "scale"},
			"apps-any":  {"deployment"},
		})
	})
})
