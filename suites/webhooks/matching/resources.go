package matching

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
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

var _ = harness.Describe(matchingResources, func(f *harness.Framework) {
	ginkgo.It("each wildcard matches what the seed says and nothing more", func(ctx ginkgo.SpecContext) {
		all := []string{"*"}
		reg, err := f.RegisterValidating(ctx, "resources",
			harness.Hook{Name: "pods", Behaviour: speckit.Allow(), Rules: speckit.ResourceRule([]string{""}, "pods")},
			harness.Hook{Name: "pods-sub", Behaviour: speckit.Allow(), Rules: speckit.ResourceRule([]string{""}, "pods/*")},
			harness.Hook{Name: "any-scale", Behaviour: speckit.Allow(), Rules: speckit.ResourceRule(all, "*/scale")},
			harness.Hook{Name: "any", Behaviour: speckit.Allow(), Rules: speckit.ResourceRule(all, "*")},
			harness.Hook{Name: "any-any", Behaviour: speckit.Allow(), Rules: speckit.ResourceRule(all, "*/*")},
			harness.Hook{Name: "apps-any", Behaviour: speckit.Allow(), Rules: speckit.ResourceRule([]string{"apps"}, "*")},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		pod, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, speckit.PendingPod(f.Namespace, "wildcards"), metav1.CreateOptions{})
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

		cm, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		deployment := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "wildcards", Namespace: f.Namespace},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "wildcards"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "wildcards"}},
					Spec:       speckit.PendingPod(f.Namespace, "template").Spec,
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

		requests := map[string]speckit.Request{
			"pod":        {Operation: "CREATE", Resource: "pods", Namespace: f.Namespace, Name: pod.Name},
			"pod-status": {Operation: "UPDATE", Resource: "pods", Namespace: f.Namespace, Name: pod.Name, Subresource: "status"},
			"configmap":  {Operation: "CREATE", Resource: "configmaps", Namespace: f.Namespace, Name: cm.Name},
			"deployment": {Operation: "CREATE", Resource: "deployments", Namespace: f.Namespace, Name: deployment.Name},
			"scale":      {Operation: "UPDATE", Resource: "deployments", Namespace: f.Namespace, Name: deployment.Name, Subresource: "scale"},
		}
		speckit.ExpectReach(f, reg, requests, map[string][]string{
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
