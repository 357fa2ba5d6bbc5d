package clusterrun

import (
	"fmt"
	"net"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
)

// Names and labels of an in-cluster run's objects.
const (
	// RunLabel is on everything the client creates (see the package doc).
	RunLabel = "admission-conformance.io/in-cluster-run"
	// NamePrefix + run ID names the namespace, the ClusterRole and its
	// binding.
	NamePrefix = "admission-conformance-run-"
	// ServiceAccountName, ServiceName, JobName, ContainerName: in the
	// run's namespace.
	ServiceAccountName = "run-conformance"
	ServiceName        = "webhooks"
	JobName            = "run-conformance"
	ContainerName      = "run-conformance"
	// WebhookPort is where the pod's fake webhooks listen; the Service
	// takes 443 to it.
	WebhookPort = 8443
	// ReportDir and TmpDir are the pod's writable dirs (emptyDirs; the
	// root filesystem is read-only).
	ReportDir = "/reports"
	TmpDir    = "/tmp"
	// OptionsName is the ConfigMap holding the pod's options file, under
	// OptionsKey; the pod reads it at OptionsPath (its volume).
	OptionsName = "run-options"
	OptionsKey  = "options.yaml"
	OptionsDir  = "/etc/run-conformance"
	OptionsPath = OptionsDir + "/" + OptionsKey
	// UID is the user the pod runs as (the image's, 65532: nonroot).
	UID = 65532
	// appLabel selects the run's pod for its Service.
	appLabel = "app.kubernetes.io/name"
	appName  = "run-conformance"
)

// Defaults.
const (
	// DefaultDeadline bounds the Job (activeDeadlineSeconds), so a run
	// nobody fetches does not keep its pod forever. A full run takes
	// minutes.
	DefaultDeadline = 3 * time.Hour
	// DefaultGracePeriod is the pod's terminationGracePeriodSeconds: on
	// Ctrl-C the client suspends the Job and the pod's harness stops its
	// specs, runs their cleanups, sweeps, writes the reports and publishes
	// them within it.
	DefaultGracePeriod = 150 * time.Second
)

// Option configures New. Options are sealed.
type Option interface{ apply(*Run) }

type optionFunc func(*Run)

func (f optionFunc) apply(r *Run) { f(r) }

// WithOptions gives the pod's options file (required): options turns the
// pod's role into the file's content, which also carries the user's
// selection, bounds, features and so on (the CLI writes its run
// configuration).
func WithOptions(options func(PodRole) ([]byte, error)) Option {
	return optionFunc(func(r *Run) { r.options = options })
}

// WithSpecs names the specs the run may select: the service account gets
// the rights they need (impersonation by name of their identities).
func WithSpecs(specs []spec.Spec) Option { return optionFunc(func(r *Run) { r.specs = specs }) }

// Grant adds optional rights (access.ForSpecs) to what the run's service
// account gets; the client grants only those its user holds.
func (r *Run) Grant(optional ...access.Access) { r.optional = append(r.optional, optional...) }

// PodAccess is what the run's pod may do: exactly what the kubeconfig
// provider's preflight checks for the specs it may select (without the
// relay's port-forward; namespaced rights in every namespace, as the spec
// namespaces get generated names), and the optional rights granted.
func (r *Run) PodAccess() []access.Access {
	return append(access.Needed(false, r.specs), r.optional...)
}

// WithDeadline replaces DefaultDeadline.
func WithDeadline(d time.Duration) Option { return optionFunc(func(r *Run) { r.deadline = d }) }

// WithGracePeriod replaces DefaultGracePeriod.
func WithGracePeriod(d time.Duration) Option { return optionFunc(func(r *Run) { r.grace = d }) }

// WithImagePullPolicy replaces IfNotPresent (an image loaded into kind's
// nodes must not be pulled).
func WithImagePullPolicy(p corev1.PullPolicy) Option {
	return optionFunc(func(r *Run) { r.pull = p })
}

// WithEnv adds environment variables to the pod (NAME=value).
func WithEnv(env ...corev1.EnvVar) Option {
	return optionFunc(func(r *Run) { r.env = append(r.env, env...) })
}

// Run is one in-cluster run: its ID, image and the objects that make it.
type Run struct {
	ID, Image string
	options   func(PodRole) ([]byte, error)
	deadline  time.Duration
	grace     time.Duration
	pull      corev1.PullPolicy
	env       []corev1.EnvVar
	// specs are those the run may select (nil: every registered spec),
	// optional the rights to impersonate identities outside the harness's
	// own that the user holds and a selected spec wants.
	specs    []spec.Spec
	optional []access.Access
	// account is the user's service account the pod runs as
	// (WithServiceAccount); nil: the run's own.
	account *Account
}

// New describes the run of ID from image. The ID is a label value that
// also names objects (lower-case letters, digits and '-', at most 30).
func New(id, image string, opts ...Option) (*Run, error) {
	if err := CheckRunID(id); err != nil {
		return nil, err
	}
	if image == "" {
		return nil, fmt.Errorf("no image: give the harness image the cluster pulls (run-conformance image)")
	}
	r := &Run{ID: id, Image: image, deadline: DefaultDeadline, grace: DefaultGracePeriod, pull: corev1.PullIfNotPresent}
	for _, o := range opts {
		o.apply(r)
	}
	if r.deadline <= 0 || r.grace <= 0 {
		return nil, fmt.Errorf("deadline and grace period must be positive")
	}
	if r.options == nil {
		return nil, fmt.Errorf("no options for the run's pod (WithOptions)")
	}
	if r.account != nil {
		if _, err := ParseAccount(r.account.String()); err != nil {
			return nil, fmt.Errorf("service account %v", err)
		}
	}
	return r, nil
}

// CheckRunID says whether id can be an in-cluster run's ID: it names the
// run's namespace, so it is a DNS label short enough for the prefix.
func CheckRunID(id string) error {
	if id == "" || len(id) > 30 || len(validation.IsDNS1123Label(NamePrefix+id)) > 0 || len(validation.IsDNS1123Label(id)) > 0 {
		return fmt.Errorf("run ID %q: use up to 30 lower-case letters, digits and '-' (e.g. 1a2b3c4d)", id)
	}
	return nil
}

// NamespaceName is where the run's pod, Service and results live: the
// run's own namespace, or the namespace of the user's service account.
func (r *Run) NamespaceName() string {
	if r.account != nil {
		return r.account.Namespace
	}
	return NamePrefix + r.ID
}

// ServiceAccountName is the account the pod runs as.
func (r *Run) ServiceAccountName() string {
	if r.account != nil {
		return r.account.Name
	}
	return ServiceAccountName
}

// Labels are on every object of the run.
func (r *Run) Labels() map[string]string { return map[string]string{RunLabel: r.ID} }

// Selector selects the run's objects.
func (r *Run) Selector() string { return RunLabel + "=" + r.ID }

func (r *Run) meta(name string, namespaced bool) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: name, Labels: r.Labels()}
	if namespaced {
		m.Namespace = r.NamespaceName()
	}
	return m
}

// Namespace enforces the restricted Pod Security level: the run's pod is
// restricted-compatible, and nothing else runs there.
func (r *Run) Namespace() *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: r.meta(r.NamespaceName(), false)}
	for _, mode := range []string{"enforce", "audit", "warn"} {
		ns.Labels["pod-security.kubernetes.io/"+mode] = "restricted"
		ns.Labels["pod-security.kubernetes.io/"+mode+"-version"] = "latest"
	}
	return ns
}

// ServiceAccount is the pod's identity.
func (r *Run) ServiceAccount() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: r.meta(ServiceAccountName, true)}
}

// ClusterRole holds PodAccess.
func (r *Run) ClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: r.meta(r.NamespaceName(), false), Rules: Rules(r.PodAccess())}
}

// ClusterRoleBinding grants the ClusterRole to the ServiceAccount.
func (r *Run) ClusterRoleBinding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: r.meta(r.NamespaceName(), false),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: r.NamespaceName()},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ServiceAccountName, Namespace: r.NamespaceName()}},
	}
}

// podLabels select the run's pod.
func (r *Run) podLabels() map[string]string {
	l := r.Labels()
	l[appLabel] = appName
	return l
}

// Service is how the apiservers reach the pod's fake webhooks.
func (r *Run) Service() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: r.meta(ServiceName, true),
		Spec: corev1.ServiceSpec{
			Selector: r.podLabels(),
			Ports:    []corev1.ServicePort{{Name: "webhooks", Port: 443, TargetPort: intstr.FromInt32(WebhookPort)}},
		},
	}
}

// WebhookNames are the Service's DNS names, which the webhook
// certificates carry.
func (r *Run) WebhookNames() []string {
	ns := r.NamespaceName()
	return []string{ServiceName + "." + ns + ".svc", ServiceName + "." + ns + ".svc.cluster.local", ServiceName + "." + ns}
}

// PodRole is what makes the pod's run the in-cluster run's pod: a
// kubeconfig-provider run with the pod's in-cluster credentials, its report
// dir, its webhooks served at the Service (ServiceIP, the Service's
// ClusterIP: apiservers resolve no cluster DNS names, so webhook URLs
// carry the IP; the certificate carries the names too), the run's ID, and
// the namespace it publishes its report dir to at the end.
type PodRole struct {
	RunID            string
	ReportDir        string
	WebhookListen    string
	WebhookAdvertise string
	WebhookNames     []string
	PublishResults   string
}

// PodRole is the pod's role, once the Service has serviceIP.
func (r *Run) PodRole(serviceIP string) PodRole {
	return PodRole{RunID: r.ID, ReportDir: ReportDir, WebhookListen: ":" + strconv.Itoa(WebhookPort),
		WebhookAdvertise: net.JoinHostPort(serviceIP, "443"), WebhookNames: r.WebhookNames(), PublishResults: r.NamespaceName()}
}

// Options is the ConfigMap holding the pod's options file (WithOptions),
// once the Service has serviceIP. It goes with the run's namespace.
func (r *Run) Options(serviceIP string) (*corev1.ConfigMap, error) {
	data, err := r.options(r.PodRole(serviceIP))
	if err != nil {
		return nil, err
	}
	return &corev1.ConfigMap{ObjectMeta: r.meta(OptionsName, true), Data: map[string]string{OptionsKey: string(data)}}, nil
}

// PodArgs is the pod's command line: a run of the options file the client
// wrote (Options), its one input.
func (r *Run) PodArgs() []string { return []string{"run", "--options", OptionsPath} }

// Job runs the harness once (no retries), as the ServiceAccount, in a pod
// the restricted Pod Security level admits: non-root, no privilege
// escalation, every capability dropped, the runtime's default seccomp
// profile, a read-only root filesystem with emptyDirs for the reports and
// TMPDIR, and the options file read-only from its ConfigMap (Options). The
// finished Job and its pod stay until the client (or `results`, or
// `cleanup`) deletes the run.
func (r *Run) Job() *batchv1.Job {
	empty := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	env := append([]corev1.EnvVar{{Name: "TMPDIR", Value: TmpDir}, {Name: "HOME", Value: TmpDir}}, r.env...)
	return &batchv1.Job{
		ObjectMeta: r.meta(JobName, true),
		Spec: batchv1.JobSpec{
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To(int64(r.deadline.Seconds())),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: r.podLabels()},
				Spec: corev1.PodSpec{
					ServiceAccountName:            r.ServiceAccountName(),
					AutomountServiceAccountToken:  ptr.To(true), // the run's credentials
					EnableServiceLinks:            ptr.To(false),
					RestartPolicy:                 corev1.RestartPolicyNever,
					TerminationGracePeriodSeconds: ptr.To(int64(r.grace.Seconds())),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](UID),
						RunAsGroup:     ptr.To[int64](UID),
						FSGroup:        ptr.To[int64](UID),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:            ContainerName,
						Image:           r.Image,
						ImagePullPolicy: r.pull,
						Args:            r.PodArgs(),
						Env:             env,
						Ports:           []corev1.ContainerPort{{Name: "webhooks", ContainerPort: WebhookPort}},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "reports", MountPath: ReportDir},
							{Name: "tmp", MountPath: TmpDir},
							{Name: "options", MountPath: OptionsDir, ReadOnly: true},
						},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("250m"),
							corev1.ResourceMemory: resource.MustParse("256Mi"),
						}},
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot:             ptr.To(true),
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
							SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
						},
					}},
					Volumes: []corev1.Volume{{Name: "reports", VolumeSource: empty}, {Name: "tmp", VolumeSource: empty},
						{Name: "options", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: OptionsName}}}}},
				},
			},
		},
	}
}
