package harness

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// deleteNamespace is a case's last cleanup on a cluster the run does not
// throw away: the namespace, and with it all the case made there.
func deleteNamespace(ctx context.Context, client kubernetes.Interface, ns string) error {
	err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// releaseNamespace is a case's last cleanup on a disposable cluster
// (cluster.Disposable): it deletes what would go on acting after the case,
// its pods (which hold a node's capacity and meet its plugins) and the
// controllers that make pods, in that order reversed, and leaves the rest
// of the namespace to go with the cluster. Eight requests, where the
// namespace controller's deletion of a namespace makes about ninety.
func releaseNamespace(ctx context.Context, client kubernetes.Interface, ns string) error {
	background := metav1.DeletePropagationBackground
	del := metav1.DeleteOptions{PropagationPolicy: &background}
	all := metav1.ListOptions{}
	apps, batch, core := client.AppsV1(), client.BatchV1(), client.CoreV1()
	steps := []struct {
		what   string
		delete func() error
	}{
		{"deployments", func() error { return apps.Deployments(ns).DeleteCollection(ctx, del, all) }},
		{"statefulsets", func() error { return apps.StatefulSets(ns).DeleteCollection(ctx, del, all) }},
		{"daemonsets", func() error { return apps.DaemonSets(ns).DeleteCollection(ctx, del, all) }},
		{"cronjobs", func() error { return batch.CronJobs(ns).DeleteCollection(ctx, del, all) }},
		{"jobs", func() error { return batch.Jobs(ns).DeleteCollection(ctx, del, all) }},
		{"replicasets", func() error { return apps.ReplicaSets(ns).DeleteCollection(ctx, del, all) }},
		{"replicationcontrollers", func() error { return core.ReplicationControllers(ns).DeleteCollection(ctx, del, all) }},
		{"pods", func() error { return core.Pods(ns).DeleteCollection(ctx, del, all) }},
	}
	var errs []error
	for _, s := range steps {
		if err := s.delete(); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete the %s of namespace %s: %w", s.what, ns, err))
		}
	}
	return errors.Join(errs...)
}
