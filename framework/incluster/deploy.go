package incluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Poll is how often the client looks at the run's objects.
const Poll = 500 * time.Millisecond

// Create creates the run's objects: namespace, service account, cluster
// role and binding, Service, the ConfigMap of the pod's options file (it
// carries the Service's ClusterIP), then the Job. On error it deletes what it created (sweep is
// not needed: no pod ran) and says which object failed.
func Create(ctx context.Context, client kubernetes.Interface, r *Run, logger logr.Logger) (err error) {
	created := false
	defer func() {
		if err != nil && created {
			dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = Delete(dctx, client, r.ID, nil, logr.Discard())
		}
	}()
	ns := r.NamespaceName()
	if _, err := client.CoreV1().Namespaces().Create(ctx, r.Namespace(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	created = true
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, r.ServiceAccount(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create service account %s/%s: %w", ns, ServiceAccountName, err)
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, r.ClusterRole(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create cluster role %s: %w", ns, err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, r.ClusterRoleBinding(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create cluster role binding %s: %w", ns, err)
	}
	svc, err := client.CoreV1().Services(ns).Create(ctx, r.Service(), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create service %s/%s: %w", ns, ServiceName, err)
	}
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == corev1.ClusterIPNone {
		return fmt.Errorf("service %s/%s got no cluster IP", ns, ServiceName)
	}
	options, err := r.Options(ip)
	if err != nil {
		return fmt.Errorf("the pod's options file: %w", err)
	}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, options, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create config map %s/%s: %w", ns, OptionsName, err)
	}
	if _, err := client.BatchV1().Jobs(ns).Create(ctx, r.Job(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create job %s/%s: %w", ns, JobName, err)
	}
	logger.Info("in-cluster: created", "namespace", ns, "objects", "service account "+ServiceAccountName+", cluster role and binding "+ns+
		", service "+ServiceName+" ("+ip+"), config map "+OptionsName+", job "+JobName, "image", r.Image)
	return nil
}

// pullFailures are container waiting reasons that will not go away by
// waiting.
var pullFailures = map[string]bool{"ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true}

// WaitStarted waits until the run's pod runs (or has already ended) and
// returns its name. It fails at once when the image cannot be pulled or
// the Job failed, and says what the pod waited for when ctx ends.
func WaitStarted(ctx context.Context, client kubernetes.Interface, namespace string, logger logr.Logger) (string, error) {
	var name, last string
	var fatal error
	seen := map[string]bool{}
	err := wait.PollUntilContextCancel(ctx, Poll, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: appLabel + "=" + appName})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if len(pods.Items) == 0 {
			job, err := client.BatchV1().Jobs(namespace).Get(ctx, JobName, metav1.GetOptions{})
			if err == nil {
				if c := jobCondition(job, batchv1.JobFailed); c != nil {
					fatal = fmt.Errorf("job %s/%s failed before its pod ran: %s", namespace, JobName, c.Message)
					return true, nil
				}
			}
			// Pod creation refused (Pod Security, quota, ...): the Job
			// controller says so in events, and retries.
			if events, err := client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{}); err == nil {
				for _, e := range events.Items {
					if e.Reason == "FailedCreate" && !seen[e.Message] {
						seen[e.Message] = true
						logger.Info("in-cluster: the job's pod was not created: " + e.Message)
						last = "pod not created: " + e.Message
					}
				}
			}
			if last == "" {
				last = "no pod yet"
			}
			return false, nil
		}
		pod := pods.Items[0]
		name = pod.Name
		last = string(pod.Status.Phase)
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Message != "" {
				last += ": " + c.Message
			}
		}
		for _, s := range pod.Status.ContainerStatuses {
			switch {
			case s.State.Running != nil || s.State.Terminated != nil:
				return true, nil
			case s.State.Waiting != nil:
				last = strings.TrimSpace(string(pod.Status.Phase) + ": " + s.State.Waiting.Reason + " " + s.State.Waiting.Message)
				if pullFailures[s.State.Waiting.Reason] {
					fatal = fmt.Errorf("pod %s/%s cannot start: %s", namespace, pod.Name, last)
					return true, nil
				}
			}
		}
		return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed, nil
	})
	if fatal != nil {
		return "", fatal
	}
	if err != nil {
		return "", fmt.Errorf("the run's pod in %s did not start (%s): %w", namespace, last, err)
	}
	return name, nil
}

func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i, c := range job.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

// LostError: the cluster did not answer for longer than Follow waits.
type LostError struct {
	For time.Duration
	Err error
}

func (e *LostError) Error() string {
	return fmt.Sprintf("lost the connection to the cluster for %s: %v", e.For.Round(time.Second), e.Err)
}

func (e *LostError) Unwrap() error { return e.Err }

// ErrPodGone: the run's pod was deleted before it ended.
var ErrPodGone = errors.New("the run's pod is gone")

// Follower copies a run's pod's output.
type Follower struct {
	Client    kubernetes.Interface
	Namespace string
	Pod       string
	Out       io.Writer
	// Lost is how long the cluster may not answer before Follow gives up.
	Lost time.Duration
	// last is the time of the last line copied: a second Follow goes on
	// after it.
	last time.Time
}

// Follow copies the pod's log lines to Out until its container ends. When
// the stream breaks while the pod runs (an apiserver restart, a network
// blip), it reconnects and goes on after the last line it copied; when the
// cluster does not answer for Lost, it returns a *LostError. It can be
// called again (after ctx ended) and goes on where it stopped.
func (f *Follower) Follow(ctx context.Context) error {
	var failing time.Time
	var lastErr error
	pods := f.Client.CoreV1().Pods(f.Namespace)
	for {
		opts := &corev1.PodLogOptions{Container: ContainerName, Follow: true, Timestamps: true}
		if !f.last.IsZero() {
			since := metav1.NewTime(f.last.Truncate(time.Second))
			opts.SinceTime = &since
		}
		stream, err := pods.GetLogs(f.Pod, opts).Stream(ctx)
		if err == nil {
			f.last, err = copyLines(stream, f.Out, f.last)
			stream.Close()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p, gerr := pods.Get(ctx, f.Pod, metav1.GetOptions{})
		switch {
		case gerr == nil:
			failing = time.Time{}
			if ended(p) && err == nil {
				return nil // every line copied
			}
		case apierrors.IsNotFound(gerr):
			return ErrPodGone
		default:
			lastErr = gerr
			if failing.IsZero() {
				failing = time.Now()
			}
			if time.Since(failing) > f.Lost {
				return &LostError{For: time.Since(failing), Err: lastErr}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(Poll):
		}
	}
}

// ended says whether the pod's container has ended.
func ended(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == ContainerName && s.State.Terminated != nil {
			return true
		}
	}
	return false
}

// copyLines copies timestamped log lines to w without their timestamps,
// skipping those not after last (already copied before a reconnect), and
// returns the last copied line's time.
func copyLines(r io.Reader, w io.Writer, last time.Time) (time.Time, error) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			stamp, text, ok := strings.Cut(line, " ")
			t, perr := time.Parse(time.RFC3339Nano, stamp)
			switch {
			case !ok || perr != nil:
				_, _ = io.WriteString(w, line) // not a timestamped line: pass it on
			case !t.After(last):
				// copied before the reconnect
			default:
				last = t
				if !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				_, _ = io.WriteString(w, text)
			}
		}
		if err == io.EOF {
			return last, nil
		}
		if err != nil {
			return last, err
		}
	}
}

// ExitCode is the run's container's exit code once it ended (-1 before).
func ExitCode(ctx context.Context, client kubernetes.Interface, namespace, pod string) (int, string, error) {
	p, err := client.CoreV1().Pods(namespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return -1, "", err
	}
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == ContainerName && s.State.Terminated != nil {
			t := s.State.Terminated
			return int(t.ExitCode), strings.TrimSpace(t.Reason + " " + t.Message), nil
		}
	}
	return -1, string(p.Status.Phase), nil
}

// Stop suspends the run's Job: the Job controller deletes its pod, which
// gets SIGTERM and its grace period to stop its specs in order, write its
// reports and publish them. The Job makes no new pod.
func Stop(ctx context.Context, client kubernetes.Interface, namespace string) error {
	_, err := client.BatchV1().Jobs(namespace).Patch(ctx, JobName, types.MergePatchType, []byte(`{"spec":{"suspend":true}}`), metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("suspend job %s/%s: %w", namespace, JobName, err)
	}
	return nil
}

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
	// Objects are what carries the run's label, e.g. "namespaces/NAME".
	Objects []string
}

// ErrNotFound: no in-cluster run of that ID.
var ErrNotFound = errors.New("no in-cluster run of that ID in the cluster")

// List returns the in-cluster runs the cluster holds (every one whose
// namespace, cluster role or binding is there), sorted by creation.
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

// Delete removes an in-cluster run: its Job and pod first (the pod gets
// its grace period), then what its specs left (sweep, given the run ID:
// webhook configurations, policies, spec namespaces), then its namespace,
// cluster role binding and cluster role; it waits until they are gone.
func Delete(ctx context.Context, client kubernetes.Interface, runID string, sweep func(context.Context, string) error, logger logr.Logger) error {
	ns := NamePrefix + runID
	var errs []error
	background := metav1.DeletePropagationBackground
	err := client.BatchV1().Jobs(ns).Delete(ctx, JobName, metav1.DeleteOptions{PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete job: %w", err))
	}
	if err == nil || apierrors.IsNotFound(err) {
		// The pod goes with the Job; until it is gone it may still create
		// webhook configurations.
		werr := wait.PollUntilContextCancel(ctx, Poll, true, func(ctx context.Context) (bool, error) {
			pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: appLabel + "=" + appName})
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
	del := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", what, err))
		}
	}
	del("namespace "+ns, client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
	del("cluster role binding "+ns, client.RbacV1().ClusterRoleBindings().Delete(ctx, ns, metav1.DeleteOptions{}))
	del("cluster role "+ns, client.RbacV1().ClusterRoles().Delete(ctx, ns, metav1.DeleteOptions{}))
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	var left []string
	err = wait.PollUntilContextCancel(ctx, Poll, true, func(ctx context.Context) (bool, error) {
		runs, err := List(ctx, client, runID)
		if err != nil {
			return false, nil
		}
		left = nil
		for _, r := range runs {
			left = append(left, r.Objects...)
		}
		return len(left) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("still in the cluster: %v: %w", left, err)
	}
	logger.Info("in-cluster: deleted the run's objects", "run", runID)
	return nil
}
