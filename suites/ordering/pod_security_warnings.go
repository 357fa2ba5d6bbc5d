package ordering

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var podSecurityWarnings = spec.Spec{
	ShortName: "PodSecurityWarnsWorkloads",
	Suite:     "ordering",
	Description: "The compiled PodSecurity plugin's warn mode admits a pod that breaks the namespace's warn level with a " +
		"warning naming the level, and a workload resource (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, " +
		"ReplicationController, PodTemplate) whose pod template breaks the namespace's enforce level is admitted with such a " +
		"warning, while a pod breaking it is refused.",
	Profile: spec.Core,
	Seed: "003 compiled admission plugins (PodSecurity); kubernetes.io Pod Security Admission (\"warn: policy violations " +
		"will trigger a user-facing warning, but are otherwise allowed\"; workload resources and templates: warn and audit " +
		"apply, enforce applies only to the resulting pods)",
}

// warningsSeen collects the warnings of a client's responses.
type warningsSeen struct {
	sync.Mutex
	texts []string
}

func (w *warningsSeen) HandleWarningHeader(_ int, _ string, text string) {
	w.Lock()
	defer w.Unlock()
	w.texts = append(w.texts, text)
}

// take returns the warnings collected so far and forgets them.
func (w *warningsSeen) take() []string {
	w.Lock()
	defer w.Unlock()
	out := w.texts
	w.texts = nil
	return out
}

// restrictedWarning starts every PodSecurity warning about the restricted level.
const restrictedWarning = `would violate PodSecurity "restricted:latest": `

var _ = harness.Describe(podSecurityWarnings, func(f *harness.Framework) {
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	// template breaks the restricted level: nothing in it sets
	// runAsNonRoot, seccompProfile, allowPrivilegeEscalation or capabilities.
	template := func() corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "pss"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
	}
	warningClient := func() (kubernetes.Interface, *warningsSeen) {
		w := &warningsSeen{}
		rc := rest.CopyConfig(f.Config)
		rc.WarningHandler = w
		client, err := kubernetes.NewForConfig(rc)
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		return client, w
	}
	label := func(ctx context.Context, key string) {
		_, err := f.Client.CoreV1().Namespaces().Patch(ctx, f.Namespace, types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"pod-security.kubernetes.io/`+key+`":"restricted"}}}`), metav1.PatchOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	}
	expectWarned := func(w *warningsSeen, what string) {
		texts := w.take()
		gomega.ExpectWithOffset(1, texts).To(gomega.ContainElement(gomega.And(gomega.HavePrefix(restrictedWarning),
			gomega.ContainSubstring("runAsNonRoot != true"))), "%s must be admitted with a PodSecurity warning, got %q", what, texts)
	}

	ginkgo.It("admits a pod breaking the warn level, with a warning naming the level", func(ctx ginkgo.SpecContext) {
		label(ctx, "warn")
		client, w := warningClient()
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "warned"}, Spec: template().Spec}
		// PodSecurity reads namespaces from its cache: wait for the label.
		var seen []string
		gomega.Eventually(ctx, func(ctx context.Context) error {
			if _, err := client.CoreV1().Pods(f.Namespace).Create(ctx, pod, dryRun); err != nil {
				return gomega.StopTrying("warn mode must not refuse the pod").Wrap(err)
			}
			seen = w.take()
			if !slices.ContainsFunc(seen, func(t string) bool { return strings.HasPrefix(t, restrictedWarning) }) {
				return fmt.Errorf("no PodSecurity warning yet (got %q)", seen)
			}
			return nil
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		gomega.Expect(seen).To(gomega.ContainElement(gomega.And(gomega.HavePrefix(restrictedWarning),
			gomega.ContainSubstring("runAsNonRoot != true"))), "the warning names what the pod breaks")
	})

	ginkgo.It("admits every workload resource whose template breaks the enforce level, with a warning, and refuses the pod", func(ctx ginkgo.SpecContext) {
		label(ctx, "enforce")
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "refused"}, Spec: template().Spec}
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, dryRun)
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
			Should(gomega.MatchError(gomega.ContainSubstring(`violates PodSecurity "restricted:latest"`)), "PodSecurity must come to enforce the namespace's label")

		client, w := warningClient()
		meta := metav1.ObjectMeta{Name: "workload"}
		selector := &metav1.LabelSelector{MatchLabels: template().Labels}
		ns := f.Namespace
		for _, tc := range []struct {
			kind   string
			create func() error
		}{
			{"Deployment", func() error {
				_, err := client.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: meta,
					Spec: appsv1.DeploymentSpec{Selector: selector, Template: template()}}, dryRun)
				return err
			}},
			{"ReplicaSet", func() error {
				_, err := client.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: meta,
					Spec: appsv1.ReplicaSetSpec{Selector: selector, Template: template()}}, dryRun)
				return err
			}},
			{"StatefulSet", func() error {
				_, err := client.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: meta,
					Spec: appsv1.StatefulSetSpec{Selector: selector, Template: template()}}, dryRun)
				return err
			}},
			{"DaemonSet", func() error {
				_, err := client.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: meta,
					Spec: appsv1.DaemonSetSpec{Selector: selector, Template: template()}}, dryRun)
				return err
			}},
			{"Job", func() error {
				t := template()
				t.Spec.RestartPolicy = corev1.RestartPolicyNever
				_, err := client.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{Template: t}}, dryRun)
				return err
			}},
			{"CronJob", func() error {
				t := template()
				t.Spec.RestartPolicy = corev1.RestartPolicyNever
				_, err := client.BatchV1().CronJobs(ns).Create(ctx, &batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{
					Schedule: "0 0 * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: t}}}}, dryRun)
				return err
			}},
			{"ReplicationController", func() error {
				t := template()
				_, err := client.CoreV1().ReplicationControllers(ns).Create(ctx, &corev1.ReplicationController{ObjectMeta: meta,
					Spec: corev1.ReplicationControllerSpec{Selector: t.Labels, Template: &t}}, dryRun)
				return err
			}},
			{"PodTemplate", func() error {
				_, err := client.CoreV1().PodTemplates(ns).Create(ctx, &corev1.PodTemplate{ObjectMeta: meta, Template: template()}, dryRun)
				return err
			}},
		} {
			gomega.Expect(tc.create()).To(gomega.Succeed(), "enforce applies to pods only: a %s must be admitted", tc.kind)
			expectWarned(w, "a "+tc.kind+" whose template breaks the enforce level")
		}
	})
})
