package clusterrun

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Status is an in-cluster run as the cluster holds it.
type Status struct {
	ID        string
	Namespace string // "" when the namespace is gone (a cluster role left)
	Created   time.Time
	// Running: its Job neither finished nor was suspended, and its
	// results are not published.
	Running bool
	// Published: its results are there to fetch.
	Published bool
	// Objects are what carries the run's label, e.g. "namespaces/NAME"
	// ("NAMESPACE/configmaps/NAME" in a shared namespace).
	Objects []string
	// Shared: the run lives in the namespace of the user's service
	// account (WithServiceAccount), which it does not own.
	Shared bool
}

// ErrNotFound: no in-cluster run of that ID.
var ErrNotFound = errors.New("no in-cluster run of that ID in the cluster")

// List returns the in-cluster runs the cluster holds (every one whose
// namespace, cluster role or binding is there, and those under a user's
// service account whose ConfigMaps are: found only if the client may list
// ConfigMaps in every namespace), sorted by creation.
func List(ctx context.Context, client kubernetes.Interface, runID string) ([]Status, error) {
	selector := RunLabel
	if runID != "" {
		selector += "=" + runID
	}
	opts := metav1.ListOptions{LabelSelector: selector}
	runs := map[string]*Status{}
	get := func(id string, created time.Time) *Status {
		s := runs[id]
		if s == nil {
			s = &Status{ID: id, Created: created}
			runs[id] = s
		}
		if s.Created.IsZero() || created.Before(s.Created) {
			s.Created = created
		}
		return s
	}
	namespaces, err := client.CoreV1().Namespaces().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	for _, ns := range namespaces.Items {
		s := get(ns.Labels[RunLabel], ns.CreationTimestamp.Time)
		s.Namespace = ns.Name
		s.Objects = append(s.Objects, "namespaces/"+ns.Name)
	}
	roles, err := client.RbacV1().ClusterRoles().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list cluster roles: %w", err)
	}
	for _, r := range roles.Items {
		s := get(r.Labels[RunLabel], r.CreationTimestamp.Time)
		s.Objects = append(s.Objects, "clusterroles/"+r.Name)
	}
	bindings, err := client.RbacV1().ClusterRoleBindings().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list cluster role bindings: %w", err)
	}
	for _, b := range bindings.Items {
		s := get(b.Labels[RunLabel], b.CreationTimestamp.Time)
		s.Objects = append(s.Objects, "clusterrolebindings/"+b.Name)
	}
	// A run under the user's service account owns no namespace: its
	// options ConfigMap, there from Create to Delete, finds it.
	cms, err := client.CoreV1().ConfigMaps("").List(ctx, opts)
	if err != nil && !apierrors.IsForbidden(err) {
		return nil, fmt.Errorf("list config maps: %w", err)
	}
	if err == nil {
		for _, cm := range cms.Items {
			id := cm.Labels[RunLabel]
			if cm.Namespace == NamePrefix+id {
				continue // its own namespace, listed above
			}
			s := get(id, cm.CreationTimestamp.Time)
			s.Namespace, s.Shared = cm.Namespace, true
			s.Objects = append(s.Objects, cm.Namespace+"/configmaps/"+cm.Name)
		}
	}
	out := make([]Status, 0, len(runs))
	for _, s := range runs {
		if s.Namespace != "" {
			job, err := client.BatchV1().Jobs(s.Namespace).Get(ctx, JobName, metav1.GetOptions{})
			if err == nil {
				s.Running = jobCondition(job, batchv1.JobComplete) == nil && jobCondition(job, batchv1.JobFailed) == nil &&
					(job.Spec.Suspend == nil || !*job.Spec.Suspend)
			} else if !apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("get job %s/%s: %w", s.Namespace, JobName, err)
			}
			if _, err := client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, ResultsName, metav1.GetOptions{}); err == nil {
				// The pod publishes as its last act: its Job is marked
				// complete only after the pod has exited, a moment later.
				s.Published, s.Running = true, false
			}
		}
		sort.Strings(s.Objects)
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Delete removes an in-cluster run that lives in namespace ("": its own,
// NamePrefix+runID): its Job and pod first (the pod gets its grace
// period), then what its specs left (sweep, given the run ID: webhook
// configurations, policies, spec namespaces), then its namespace, cluster
// role binding and cluster role, or, in a namespace it does not own (the
// user's service account's), only the objects carrying its label; it waits
// until they are gone.
func Delete(ctx context.Context, client kubernetes.Interface, runID, namespace string, sweep func(context.Context, string) error, logger logr.Logger) error {
	ns, owned := namespace, namespace == "" || namespace == NamePrefix+runID
	if owned {
		ns = NamePrefix + runID
	}
	selector := RunLabel + "=" + runID
	var errs []error
	del := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", what, err))
		}
	}
	background := metav1.DeletePropagationBackground
	jobs, err := client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("list jobs: %w", err))
	}
	if err == nil {
		for _, j := range jobs.Items {
			del("job "+ns+"/"+j.Name, client.BatchV1().Jobs(ns).Delete(ctx, j.Name, metav1.DeleteOptions{PropagationPolicy: &background}))
		}
	}
	if len(errs) == 0 {
		// The pod goes with the Job; until it is gone it may still create
		// webhook configurations.
		werr := wait.PollUntilContextCancel(ctx, Poll, true, func(ctx context.Context) (bool, error) {
			pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector + "," + appLabel + "=" + appName})
			if err != nil {
				return apierrors.IsNotFound(err), nil
			}
			for _, p := range pods.Items {
				if p.DeletionTimestamp == nil {
					_ = client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{})
				}
			}
			return len(pods.Items) == 0, nil
		})
		if werr != nil {
			errs = append(errs, fmt.Errorf("the run's pod in %s is still there: %w", ns, werr))
		}
	}
	if sweep != nil {
		if err := sweep(ctx, runID); err != nil {
			errs = append(errs, err)
		}
	}
	if owned {
		del("namespace "+ns, client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
		del("cluster role binding "+ns, client.RbacV1().ClusterRoleBindings().Delete(ctx, ns, metav1.DeleteOptions{}))
		del("cluster role "+ns, client.RbacV1().ClusterRoles().Delete(ctx, ns, metav1.DeleteOptions{}))
	} else {
		left, err := runObjects(ctx, client, ns, selector)
		if err != nil {
			errs = append(errs, err)
		}
		for _, o := range left {
			kind, name, _ := strings.Cut(o.what, "/")
			switch kind {
			case "services":
				del(ns+"/"+o.what, client.CoreV1().Services(ns).Delete(ctx, name, metav1.DeleteOptions{}))
			case "configmaps":
				del(ns+"/"+o.what, client.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	var left []string
	err = wait.PollUntilContextCancel(ctx, Poll, true, func(ctx context.Context) (bool, error) {
		left = nil
		if owned {
			runs, err := List(ctx, client, runID)
			if err != nil {
				return false, nil
			}
			for _, r := range runs {
				left = append(left, r.Objects...)
			}
		} else {
			objects, err := runObjects(ctx, client, ns, selector)
			if err != nil {
				return false, nil
			}
			for _, o := range objects {
				left = append(left, ns+"/"+o.what)
			}
		}
		return len(left) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("still in the cluster: %v: %w", left, err)
	}
	logger.Info("in-cluster: deleted the run's objects", "run", runID)
	return nil
}

// noOtherRun refuses a namespace that already holds an in-cluster run's
// objects: the run's objects have fixed names, so one run per service
// account namespace at a time.
func noOtherRun(ctx context.Context, client kubernetes.Interface, ns string) error {
	left, err := runObjects(ctx, client, ns, RunLabel)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("namespace %s already holds in-cluster run %s (%s): one run per namespace at a time; "+
			"wait for it to end or remove it with 'run-conformance cleanup --run %s'", ns, left[0].id, left[0].what, left[0].id)
	}
	return nil
}

// runObject is an object of an in-cluster run in a namespace the run
// does not own.
type runObject struct{ id, what string }

// runObjects lists what carries selector in ns: Jobs, pods, Services and
// ConfigMaps, the kinds an in-cluster run puts in a namespace it shares.
func runObjects(ctx context.Context, client kubernetes.Interface, ns, selector string) ([]runObject, error) {
	opts := metav1.ListOptions{LabelSelector: selector}
	var out []runObject
	add := func(kind string, m metav1.ObjectMeta) {
		out = append(out, runObject{id: m.Labels[RunLabel], what: kind + "/" + m.Name})
	}
	jobs, err := client.BatchV1().Jobs(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list jobs in %s: %w", ns, err)
	}
	for _, o := range jobs.Items {
		add("jobs", o.ObjectMeta)
	}
	pods, err := client.CoreV1().Pods(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list pods in %s: %w", ns, err)
	}
	for _, o := range pods.Items {
		add("pods", o.ObjectMeta)
	}
	svcs, err := client.CoreV1().Services(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list services in %s: %w", ns, err)
	}
	for _, o := range svcs.Items {
		add("services", o.ObjectMeta)
	}
	cms, err := client.CoreV1().ConfigMaps(ns).List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list config maps in %s: %w", ns, err)
	}
	for _, o := range cms.Items {
		add("configmaps", o.ObjectMeta)
	}
	return out, nil
}
