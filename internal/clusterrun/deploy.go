package clusterrun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
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
// role and binding (none of these under the user's own service account,
// WithServiceAccount), Service, the ConfigMap of the pod's options file (it
// carries the Service's ClusterIP), then the Job. On error it deletes what
// it created (sweep is not needed: no pod ran) and says which object
// failed.
func Create(ctx context.Context, client kubernetes.Interface, r *Run, logger logr.Logger) (err error) {
	created := false
	defer func() {
		if err != nil && created {
			dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = Delete(dctx, client, r.ID, r.NamespaceName(), nil, logr.Discard())
		}
	}()
	ns := r.NamespaceName()
	if r.OwnsNamespace() {
		if created, err = createOwn(ctx, client, r); err != nil {
			return err
		}
	} else if err := noOtherRun(ctx, client, ns); err != nil {
		return err
	}
	svc, err := client.CoreV1().Services(ns).Create(ctx, r.Service(), metav1.CreateOptions{})
	if err != nil {
		// Under the user's account a Service of that name may be theirs:
		// nothing of this run's exists yet.
		created = r.OwnsNamespace()
		return fmt.Errorf("create service %s/%s: %w", ns, ServiceName, err)
	}
	created = true
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
	objects := "service " + ServiceName + " (" + ip + "), config map " + OptionsName + ", job " + JobName + " as service account " + r.ServiceAccountName()
	if r.OwnsNamespace() {
		objects = "service account " + ServiceAccountName + ", cluster role and binding " + ns + ", " + objects
	}
	logger.Info("in-cluster: created", "namespace", ns, "objects", objects, "image", r.Image)
	return nil
}

// createOwn creates the run's own namespace, service account, ClusterRole
// and binding; created says whether the namespace was (what to roll back).
func createOwn(ctx context.Context, client kubernetes.Interface, r *Run) (created bool, err error) {
	ns := r.NamespaceName()
	if _, err := client.CoreV1().Namespaces().Create(ctx, r.Namespace(), metav1.CreateOptions{}); err != nil {
		return false, fmt.Errorf("create namespace %s: %w", ns, err)
	}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, r.ServiceAccount(), metav1.CreateOptions{}); err != nil {
		return true, fmt.Errorf("create service account %s/%s: %w", ns, ServiceAccountName, err)
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, r.ClusterRole(), metav1.CreateOptions{}); err != nil {
		return true, fmt.Errorf("create cluster role %s: %w", ns, err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, r.ClusterRoleBinding(), metav1.CreateOptions{}); err != nil {
		return true, fmt.Errorf("create cluster role binding %s: %w", ns, err)
	}
	return true, nil
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
