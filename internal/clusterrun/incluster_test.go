package clusterrun

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/runobjects"
	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// roleAsJSON stands in for the CLI's options file: the pod's role as JSON.
func roleAsJSON(role PodRole) ([]byte, error) { return json.Marshal(role) }

func newRun(t *testing.T, opts ...Option) *Run {
	t.Helper()
	r, err := New("1a2b3c4d", "registry.example/run-conformance:v1", append([]Option{WithOptions(roleAsJSON)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// restricted evaluates a pod against the restricted Pod Security level,
// latest version, with the admission plugin's own checks.
func restricted(t *testing.T, meta *metav1.ObjectMeta, spec *corev1.PodSpec) []string {
	t.Helper()
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var denied []string
	for _, r := range eval.EvaluatePod(psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}, meta, spec) {
		if !r.Allowed {
			denied = append(denied, r.ForbiddenReason+": "+r.ForbiddenDetail)
		}
	}
	return denied
}

func TestJobPodIsRestricted(t *testing.T) {
	job := newRun(t).Job()
	tmpl := job.Spec.Template
	if denied := restricted(t, &tmpl.ObjectMeta, &tmpl.Spec); len(denied) > 0 {
		t.Fatalf("the run's pod violates the restricted level: %v", denied)
	}
	// The evaluator is not vacuous: each hardening taken away is caught.
	for name, weaken := range map[string]func(*corev1.PodSpec){
		"seccomp": func(s *corev1.PodSpec) {
			s.SecurityContext.SeccompProfile = nil
			s.Containers[0].SecurityContext.SeccompProfile = nil
		},
		"capabilities": func(s *corev1.PodSpec) { s.Containers[0].SecurityContext.Capabilities = nil },
		"escalation":   func(s *corev1.PodSpec) { s.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil },
		"non-root": func(s *corev1.PodSpec) {
			s.SecurityContext.RunAsNonRoot = nil
			s.Containers[0].SecurityContext.RunAsNonRoot = nil
		},
	} {
		spec := tmpl.Spec.DeepCopy()
		weaken(spec)
		if len(restricted(t, &tmpl.ObjectMeta, spec)) == 0 {
			t.Errorf("without %s the pod still passes: the check proves nothing", name)
		}
	}
	c := tmpl.Spec.Containers[0]
	sc := c.SecurityContext
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("the root filesystem is writable")
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	for _, dir := range []string{ReportDir, TmpDir} {
		name, ok := mounts[dir]
		if !ok {
			t.Fatalf("%s is not mounted (read-only root)", dir)
		}
		found := false
		for _, v := range tmpl.Spec.Volumes {
			found = found || (v.Name == name && v.EmptyDir != nil)
		}
		if !found {
			t.Errorf("%s is not an emptyDir", dir)
		}
	}
	if !slices.Contains(c.Env, corev1.EnvVar{Name: "TMPDIR", Value: TmpDir}) {
		t.Errorf("TMPDIR not set: %v", c.Env)
	}
	if *job.Spec.BackoffLimit != 0 || tmpl.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Error("a failed run would be retried")
	}
	if job.Spec.ActiveDeadlineSeconds == nil || *job.Spec.ActiveDeadlineSeconds != int64(DefaultDeadline.Seconds()) {
		t.Errorf("deadline %v", job.Spec.ActiveDeadlineSeconds)
	}
	if job.Spec.TTLSecondsAfterFinished != nil {
		t.Error("a finished run must stay until its results are fetched")
	}
	if tmpl.Spec.ServiceAccountName != ServiceAccountName || c.Image != "registry.example/run-conformance:v1" ||
		c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("service account %q, image %q, pull %q", tmpl.Spec.ServiceAccountName, c.Image, c.ImagePullPolicy)
	}
}

func TestNamespaceEnforcesRestricted(t *testing.T) {
	ns := newRun(t).Namespace()
	if ns.Name != "admission-conformance-run-1a2b3c4d" {
		t.Errorf("namespace %s", ns.Name)
	}
	for _, mode := range []string{"enforce", "audit", "warn"} {
		if ns.Labels["pod-security.kubernetes.io/"+mode] != "restricted" || ns.Labels["pod-security.kubernetes.io/"+mode+"-version"] != "latest" {
			t.Errorf("%s labels: %v", mode, ns.Labels)
		}
	}
	if _, err := psaapi.ParseLevel(ns.Labels[psaapi.EnforceLevelLabel]); err != nil {
		t.Error(err)
	}
}

// TestClusterRoleIsExactlyThePreflightList: what the pod may do is what the
// preflight checks, no more, no less, and without the relay's port-forward.
func TestClusterRoleIsExactlyThePreflightList(t *testing.T) {
	role := newRun(t).ClusterRole()
	granted := sets.New[string]()
	for _, r := range role.Rules {
		if len(r.NonResourceURLs) > 0 {
			t.Errorf("rule %+v goes beyond the preflight", r)
		}
		if len(r.ResourceNames) > 0 && !slices.Equal(r.Verbs, []string{"impersonate"}) {
			t.Errorf("rule %+v names objects: only impersonation does", r)
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					// Two wildcards are needed: every resource of the
					// project's own API group, which serves nothing, for
					// a policy whose paramKind names no resource; every
					// resource of the group of the custom resources the
					// run defines, whose names are the cases' own.
					ownGroup := (g == "admission-conformance.io" && res == "*" && v == "get") || (g == runobjects.CustomResourceGroup && res == "*")
					if (g == "*" || res == "*" || v == "*") && !ownGroup {
						t.Errorf("wildcard in %+v", r)
					}
					resource, sub, _ := strings.Cut(res, "/")
					for _, name := range append([]string{""}, r.ResourceNames...)[min(1, len(r.ResourceNames)):] {
						granted.Insert(kubeconfig.Access{Verb: v, Group: g, Resource: resource, Subresource: sub, Name: name}.String())
					}
				}
			}
		}
	}
	want := sets.New[string]()
	for _, a := range kubeconfig.NeededAccess(false) {
		want.Insert(a.String())
	}
	if !granted.Equal(want) {
		t.Errorf("granted but not checked: %v; checked but not granted: %v", sets.List(granted.Difference(want)), sets.List(want.Difference(granted)))
	}
	if granted.Has("create pods/portforward") {
		t.Error("the pod may port-forward: that is the relay's")
	}
	// Stable: the same list gives the same rules.
	again := newRun(t).ClusterRole()
	if len(again.Rules) != len(role.Rules) {
		t.Fatal("rules differ between two calls")
	}
	for i := range role.Rules {
		if strings.Join(role.Rules[i].Resources, ",") != strings.Join(again.Rules[i].Resources, ",") ||
			strings.Join(role.Rules[i].Verbs, ",") != strings.Join(again.Rules[i].Verbs, ",") {
			t.Fatalf("rule %d differs", i)
		}
	}
}

// TestRulesKeepImpersonationByName: impersonation rules name their users,
// groups, uids and extra values, and are never merged into a rule that
// names nobody (which would allow impersonating anyone).
func TestRulesKeepImpersonationByName(t *testing.T) {
	var list []kubeconfig.Access
	for _, id := range identity.All() {
		list = append(list, access.Impersonation(id)...)
	}
	list = append(list, kubeconfig.Access{Verb: "get", Resource: "users"})
	var got []string
	for _, r := range Rules(list) {
		got = append(got, r.APIGroups[0]+"|"+r.Resources[0]+"|"+strings.Join(r.Verbs, ",")+"|"+strings.Join(r.ResourceNames, ","))
		if slices.Contains(r.Verbs, "impersonate") && len(r.ResourceNames) == 0 && r.Resources[0] != "userextras/"+identity.CaseExtra {
			t.Errorf("rule %+v impersonates anyone", r)
		}
	}
	for _, want := range []string{
		"|groups|impersonate|admission-conformance:userinfo-group,system:masters,system:nodes",
		"|users|get|",
		"authentication.k8s.io|userextras/" + identity.CaseExtra + "|impersonate|",
		"authentication.k8s.io|userextras/scopes|impersonate|read,write",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("rules %v lack %s", got, want)
		}
	}
}

func TestRulesMergeVerbsPerResource(t *testing.T) {
	rules := Rules([]kubeconfig.Access{
		{Verb: "list", Resource: "pods"}, {Verb: "create", Resource: "pods"}, {Verb: "create", Resource: "pods", Subresource: "exec"},
		{Verb: "get", Group: "apps", Resource: "deployments"}, {Verb: "create", Resource: "pods"},
	})
	got := []string{}
	for _, r := range rules {
		got = append(got, r.APIGroups[0]+"|"+r.Resources[0]+"|"+strings.Join(r.Verbs, ","))
	}
	want := []string{"|pods|create,list", "|pods/exec|create", "apps|deployments|get"}
	if !slices.Equal(got, want) {
		t.Errorf("rules %v, want %v", got, want)
	}
}

func TestBindingServiceAndLabels(t *testing.T) {
	r := newRun(t)
	b := r.ClusterRoleBinding()
	if b.RoleRef.Name != r.ClusterRole().Name || b.RoleRef.Kind != "ClusterRole" ||
		len(b.Subjects) != 1 || b.Subjects[0].Name != ServiceAccountName || b.Subjects[0].Namespace != r.NamespaceName() {
		t.Errorf("binding %+v", b)
	}
	svc := r.Service()
	options, err := r.Options("10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	pod := r.Job().Spec.Template
	for k, v := range svc.Spec.Selector {
		if pod.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, the pod has %q", k, v, pod.Labels[k])
		}
	}
	if p := svc.Spec.Ports[0]; p.Port != 443 || p.TargetPort.IntValue() != WebhookPort {
		t.Errorf("service port %+v", p)
	}
	for _, obj := range []metav1.Object{r.Namespace(), r.ServiceAccount(), r.ClusterRole(), b, svc, options, r.Job()} {
		if obj.GetLabels()[RunLabel] != r.ID {
			t.Errorf("%s lacks %s=%s", obj.GetName(), RunLabel, r.ID)
		}
		if obj.GetLabels()["admission-conformance.io/run"] != "" {
			t.Errorf("%s carries the harness's run label: the pod's own sweep would delete it", obj.GetName())
		}
	}
	for _, obj := range []metav1.Object{r.ServiceAccount(), svc, options, r.Job()} {
		if obj.GetNamespace() != r.NamespaceName() {
			t.Errorf("%s in namespace %q", obj.GetName(), obj.GetNamespace())
		}
	}
}

// optionsRole is the role the pod's options file (roleAsJSON) carries.
func optionsRole(t *testing.T, cm *corev1.ConfigMap) PodRole {
	t.Helper()
	var role PodRole
	if err := json.Unmarshal([]byte(cm.Data[OptionsKey]), &role); err != nil {
		t.Fatalf("options file %q: %v", cm.Data[OptionsKey], err)
	}
	return role
}

// TestPodRunsItsOptionsFile: the pod's one input is its options file,
// holding its role, mounted read-only from the run's ConfigMap.
func TestPodRunsItsOptionsFile(t *testing.T) {
	r := newRun(t)
	if args := strings.Join(r.PodArgs(), " "); args != "run --options "+OptionsPath {
		t.Errorf("pod args %q", args)
	}
	cm, err := r.Options("10.96.0.10")
	if err != nil {
		t.Fatal(err)
	}
	role := optionsRole(t, cm)
	want := PodRole{RunID: "1a2b3c4d", ReportDir: ReportDir, WebhookListen: ":8443", WebhookAdvertise: "10.96.0.10:443",
		WebhookNames: r.WebhookNames(), PublishResults: "admission-conformance-run-1a2b3c4d"}
	if !reflect.DeepEqual(role, want) {
		t.Errorf("role %+v, want %+v", role, want)
	}
	if !slices.Contains(role.WebhookNames, "webhooks.admission-conformance-run-1a2b3c4d.svc") {
		t.Errorf("webhook names %v", role.WebhookNames)
	}
	if got := r.PodRole("fd00::10").WebhookAdvertise; got != "[fd00::10]:443" {
		t.Errorf("IPv6 service: %s", got)
	}
	spec := r.Job().Spec.Template.Spec
	mounted := false
	for _, m := range spec.Containers[0].VolumeMounts {
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil && v.ConfigMap.Name == cm.Name {
				mounted = m.MountPath+"/"+OptionsKey == OptionsPath && m.ReadOnly
			}
		}
	}
	if !mounted {
		t.Errorf("the options ConfigMap is not mounted read-only at %s: %+v %+v", OptionsDir, spec.Volumes, spec.Containers[0].VolumeMounts)
	}
	failing := newRun(t, WithOptions(func(PodRole) ([]byte, error) { return nil, errors.New("no") }))
	if _, err := failing.Options("10.0.0.1"); err == nil {
		t.Error("an options file that cannot be written is not an error")
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	for _, id := range []string{"", "UPPER", "a_b", strings.Repeat("a", 31), "-x"} {
		if _, err := New(id, "x:1"); err == nil {
			t.Errorf("run ID %q accepted", id)
		}
	}
	if _, err := New("abc", ""); err == nil {
		t.Error("no image accepted")
	}
	if _, err := New("abc", "x:1", WithOptions(roleAsJSON), WithDeadline(0)); err == nil {
		t.Error("zero deadline accepted")
	}
	if _, err := New("abc", "x:1"); err == nil {
		t.Error("a run without its pod's options accepted")
	}
}

func writeReports(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPublishAndFetchCarryTheReportDir(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	src := t.TempDir()
	big := make([]byte, 2*ChunkSize+123) // incompressible: three chunks
	_, _ = rand.Read(big)
	files := map[string][]byte{"results.json": []byte(`{"kind":"Results"}`), "run.log": []byte("[1/1] PASSED x\n"), "report.html": big}
	writeReports(t, src, files)
	if err := os.Mkdir(filepath.Join(src, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(ctx, client, "ns", t.TempDir()); !errors.Is(err, ErrNoResults) {
		t.Fatalf("before publishing: %v", err)
	}
	if err := Publish(ctx, client, "ns", "1a2b", src, 1, "2 spec case(s) failed"); err != nil {
		t.Fatal(err)
	}
	cms, _ := client.CoreV1().ConfigMaps("ns").List(ctx, metav1.ListOptions{LabelSelector: RunLabel + "=1a2b"})
	if len(cms.Items) < 4 {
		t.Fatalf("%d configmaps, want an index and at least 3 chunks", len(cms.Items))
	}
	for _, cm := range cms.Items {
		size := 0
		for _, b := range cm.BinaryData {
			size += len(b)
		}
		if size > ChunkSize {
			t.Errorf("%s holds %d bytes", cm.Name, size)
		}
	}
	dst := filepath.Join(t.TempDir(), "reports")
	out, err := Fetch(ctx, client, "ns", dst)
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 1 || out.Message != "2 spec case(s) failed" || out.Ended.IsZero() {
		t.Errorf("outcome %+v", out)
	}
	want := []string{"report.html", "results.json", "run.log"}
	if !slices.Equal(out.Files, want) {
		t.Errorf("files %v, want %v", out.Files, want)
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s differs after the round trip (%v)", name, err)
		}
	}
	// Publishing again (a retry) replaces.
	if err := Publish(ctx, client, "ns", "1a2b", src, 0, ""); err != nil {
		t.Fatalf("second publish: %v", err)
	}
	// A lost chunk is an error, not a truncated report.
	if err := client.CoreV1().ConfigMaps("ns").Delete(ctx, chunkName(1), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(ctx, client, "ns", t.TempDir()); err == nil {
		t.Error("a missing chunk went unnoticed")
	}
}

func TestPublishEmptyDirAndFetchDigestMismatch(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	if err := Publish(ctx, client, "ns", "x", filepath.Join(t.TempDir(), "never-written"), 2, "cluster set-up failed"); err != nil {
		t.Fatal(err)
	}
	out, err := Fetch(ctx, client, "ns", t.TempDir())
	if err != nil || out.ExitCode != 2 || len(out.Files) != 0 {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	cm, _ := client.CoreV1().ConfigMaps("ns").Get(ctx, chunkName(0), metav1.GetOptions{})
	cm.BinaryData[keyChunk] = append(cm.BinaryData[keyChunk], 0)
	_, _ = client.CoreV1().ConfigMaps("ns").Update(ctx, cm, metav1.UpdateOptions{})
	if _, err := Fetch(ctx, client, "ns", t.TempDir()); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a changed chunk: %v", err)
	}
}

func TestUnpackKeepsFilesInsideTheDir(t *testing.T) {
	src := t.TempDir()
	writeReports(t, src, map[string][]byte{"a": []byte("x")})
	archive, err := pack(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unpack(archive, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	evil := evilArchive(t, "../escaped")
	dir := t.TempDir()
	if _, err := unpack(evil, filepath.Join(dir, "in")); err == nil {
		t.Error("a path outside the dir was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "escaped")); err == nil {
		t.Error("a file landed outside the dir")
	}
}

// serviceIPs gives created Services a ClusterIP, as the apiserver does.
func serviceIPs(client *fake.Clientset) {
	client.PrependReactor("create", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		svc := a.(k8stesting.CreateAction).GetObject().(*corev1.Service)
		svc.Spec.ClusterIP = "10.96.7.7"
		return false, nil, nil
	})
}

func TestCreateListAndDelete(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	serviceIPs(client)
	r := newRun(t)
	if err := Create(ctx, client, r, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	job, err := client.BatchV1().Jobs(r.NamespaceName()).Get(ctx, JobName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if line := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " "); line != "run --options "+OptionsPath {
		t.Errorf("the pod's command line: %s", line)
	}
	options, err := client.CoreV1().ConfigMaps(r.NamespaceName()).Get(ctx, OptionsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if role := optionsRole(t, options); role.WebhookAdvertise != "10.96.7.7:443" {
		t.Errorf("the pod does not advertise the Service's IP: %+v", role)
	}
	runs, err := List(ctx, client, "")
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	got := runs[0]
	wantObjects := []string{"clusterrolebindings/" + r.NamespaceName(), "clusterroles/" + r.NamespaceName(), "namespaces/" + r.NamespaceName()}
	if got.ID != r.ID || !got.Running || got.Published || !slices.Equal(got.Objects, wantObjects) {
		t.Errorf("status %+v", got)
	}
	// Published results end the run, before the Job says it completed.
	results := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ResultsName, Namespace: r.NamespaceName()}}
	if _, err := client.CoreV1().ConfigMaps(r.NamespaceName()).Create(ctx, results, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if runs, _ := List(ctx, client, r.ID); len(runs) != 1 || runs[0].Running || !runs[0].Published {
		t.Errorf("a run that published its results is still running: %+v", runs)
	}
	if err := client.CoreV1().ConfigMaps(r.NamespaceName()).Delete(ctx, ResultsName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Stop(ctx, client, r.NamespaceName()); err != nil {
		t.Fatal(err)
	}
	if runs, _ := List(ctx, client, r.ID); len(runs) != 1 || runs[0].Running {
		t.Errorf("a suspended run is still running: %+v", runs)
	}
	var swept []string
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = Delete(dctx, client, r.ID, "", func(_ context.Context, id string) error { swept = append(swept, id); return nil }, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(swept, []string{r.ID}) {
		t.Errorf("swept %v", swept)
	}
	if runs, _ := List(ctx, client, ""); len(runs) != 0 {
		t.Errorf("left %+v", runs)
	}
	if _, err := client.BatchV1().Jobs(r.NamespaceName()).Get(ctx, JobName, metav1.GetOptions{}); err == nil {
		t.Error("the job is still there")
	}
}

func TestCreateRollsBackOnFailure(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	serviceIPs(client)
	client.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("jobs are forbidden")
	})
	err := Create(ctx, client, newRun(t), logr.Discard())
	if err == nil || !strings.Contains(err.Error(), "create job") {
		t.Fatalf("error %v", err)
	}
	if runs, _ := List(ctx, client, ""); len(runs) != 0 {
		t.Errorf("left after a failed create: %+v", runs)
	}
	client = fake.NewClientset() // the fake deletes no namespace's objects with it
	serviceIPs(client)
	noOptions := newRun(t, WithOptions(func(PodRole) ([]byte, error) { return nil, errors.New("cannot encode") }))
	if err := Create(ctx, client, noOptions, logr.Discard()); err == nil || !strings.Contains(err.Error(), "options file: cannot encode") {
		t.Fatalf("error %v", err)
	}
	if runs, _ := List(ctx, client, ""); len(runs) != 0 {
		t.Errorf("left after a failed options file: %+v", runs)
	}
}

func pod(ns string, status corev1.PodStatus) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "run-conformance-x", Namespace: ns, Labels: map[string]string{appLabel: appName}}, Status: status}
}

func TestWaitStarted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	running := corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: ContainerName,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
	name, err := WaitStarted(ctx, fake.NewClientset(pod("ns", running)), "ns", logr.Discard())
	if err != nil || name != "run-conformance-x" {
		t.Fatalf("running pod: %q, %v", name, err)
	}
	backoff := corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: ContainerName,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "x:1"`}}}}}
	_, err = WaitStarted(ctx, fake.NewClientset(pod("ns", backoff)), "ns", logr.Discard())
	if err == nil || !strings.Contains(err.Error(), "ImagePullBackOff") {
		t.Fatalf("image that cannot be pulled: %v", err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel2()
	refused := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}, Reason: "FailedCreate", Message: `pods "x" is forbidden: violates PodSecurity "restricted:latest"`}
	_, err = WaitStarted(short, fake.NewClientset(refused), "ns", logr.Discard())
	if err == nil || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Fatalf("pod refused: %v", err)
	}
}

func TestCopyLinesSkipsWhatWasCopied(t *testing.T) {
	in := "2026-01-02T03:04:05.100000000Z first\n2026-01-02T03:04:05.200000000Z second\n"
	var out bytes.Buffer
	last, err := copyLines(strings.NewReader(in), &out, time.Time{})
	if err != nil || out.String() != "first\nsecond\n" {
		t.Fatalf("%q, %v", out.String(), err)
	}
	// After a reconnect the stream restarts at the second: only new lines.
	out.Reset()
	again := in + "2026-01-02T03:04:06.000000000Z third\nno timestamp\n"
	if _, err := copyLines(strings.NewReader(again), &out, last); err != nil || out.String() != "third\nno timestamp\n" {
		t.Fatalf("after reconnect %q, %v", out.String(), err)
	}
}

func TestFollowEndsWithThePod(t *testing.T) {
	ended := corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: ContainerName,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}}
	client := fake.NewClientset(pod("ns", ended))
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := (&Follower{Client: client, Namespace: "ns", Pod: "run-conformance-x", Out: &out, Lost: time.Second}).Follow(ctx); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		t.Error("nothing copied")
	}
	code, reason, err := ExitCode(ctx, client, "ns", "run-conformance-x")
	if err != nil || code != 1 || reason != "Error" {
		t.Errorf("exit code %d %q %v", code, reason, err)
	}
	if err := (&Follower{Client: client, Namespace: "ns", Pod: "gone", Out: &out, Lost: time.Second}).Follow(ctx); !errors.Is(err, ErrPodGone) {
		t.Errorf("deleted pod: %v", err)
	}
}
