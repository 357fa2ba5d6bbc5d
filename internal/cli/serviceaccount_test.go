package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
)

// accountNS holds the service accounts the user manages in these tests.
const accountNS = "conformance"

// rbacAndAccounts lists every RBAC object, service account and namespace
// of the cluster, to see that a run created none.
func rbacAndAccounts(t *testing.T, client kubernetes.Interface) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	add := func(kind string, list any, err error) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(list)
		var l struct {
			Items []struct{ Metadata metav1.ObjectMeta } `json:"items"`
		}
		_ = json.Unmarshal(b, &l)
		for _, i := range l.Items {
			out = append(out, kind+"/"+i.Metadata.Namespace+"/"+i.Metadata.Name)
		}
	}
	cr, err := client.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	add("clusterroles", cr, err)
	crb, err := client.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	add("clusterrolebindings", crb, err)
	r, err := client.RbacV1().Roles("").List(ctx, metav1.ListOptions{})
	add("roles", r, err)
	rb, err := client.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
	add("rolebindings", rb, err)
	sa, err := client.CoreV1().ServiceAccounts("").List(ctx, metav1.ListOptions{})
	add("serviceaccounts", sa, err)
	ns, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	add("namespaces", ns, err)
	sort.Strings(out)
	return out
}

// bindAccount creates service account name in accountNS bound to exactly
// rights, and waits until the authorizer says so.
func bindAccount(t *testing.T, client kubernetes.Interface, name string, rights []access.Access) {
	t.Helper()
	ctx := context.Background()
	if _, err := client.CoreV1().ServiceAccounts(accountNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := access.ClusterRole("test-account-"+name, rights)
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: accountNS}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	subject := clusterrun.Account{Namespace: accountNS, Name: name}.Subject()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: subject.User, Groups: subject.Groups, ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "nodes"}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the binding of %s never took effect", name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// without is rights less those named.
func without(rights []access.Access, names ...string) []access.Access {
	var out []access.Access
	for _, a := range rights {
		if !slices.Contains(names, a.String()) {
			out = append(out, a)
		}
	}
	return out
}

// TestServiceAccountRunOnEmbeddedCluster: run --in-cluster
// --service-account against an embedded cluster's real authorizer. A
// missing account and an account lacking a right every run needs are one
// line, exit 2, nothing created; an account lacking only pods/exec passes
// the preflight with the two specs that need it named not supported, and
// the run's objects go in the account's namespace with no RBAC object,
// service account, namespace or Secret created, and are gone after Delete.
func TestServiceAccountRunOnEmbeddedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("boots an embedded cluster")
	}
	c, err := startTestCluster(t)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: accountNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	needed := access.Needed(false, spec.All())
	bindAccount(t, c.client, "partial", without(needed, "create namespaces"))
	bindAccount(t, c.client, "no-exec", without(needed, "create pods/exec"))
	before := rbacAndAccounts(t, c.client)
	secrets := func() []string {
		l, err := c.client.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range l.Items {
			out = append(out, s.Namespace+"/"+s.Name)
		}
		return out
	}
	secretsBefore := secrets()
	cli := func(account string) cliResult {
		return runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", c.kubeconfig, "--in-cluster", "--image", "registry.example/run-conformance:v1",
			"--service-account", account)
	}
	for account, want := range map[string]string{
		accountNS + "/missing": "--service-account conformance/missing: no such service account: create it",
		accountNS + "/partial": "preflight: service account conformance/partial may not create namespaces, which every run needs",
	} {
		r := cli(account)
		r.mustExit(t, 2)
		line := strings.TrimSpace(r.stderr)
		if !strings.Contains(line, want) || strings.Contains(line, "\n") {
			t.Errorf("%s: stderr %q, want one line with %q", account, line, want)
		}
		t.Logf("%s: exit %d: %s", account, r.code, line)
		if after := rbacAndAccounts(t, c.client); !slices.Equal(after, before) {
			t.Errorf("%s: the refused run changed the cluster's RBAC, accounts or namespaces", account)
		}
		if left, _ := clusterrun.List(ctx, c.client, ""); len(left) != 0 {
			t.Errorf("%s: left %+v", account, left)
		}
	}

	// The account lacking pods/exec: the preflight's verdict with the
	// real authorizer, then the objects a run makes and removes.
	r, err := clusterrun.New(harness.NewRunID(), "registry.example/run-conformance:v1", clusterrun.WithOptions(func(clusterrun.PodRole) ([]byte, error) { return []byte("{}"), nil }),
		clusterrun.WithServiceAccount(clusterrun.Account{Namespace: accountNS, Name: "no-exec"}))
	if err != nil {
		t.Fatal(err)
	}
	rights, err := clusterrun.CheckAccount(ctx, c.client, r)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"ConnectReachesAdmission": {"create pods/exec"}, "ReviewRequestContent": {"create pods/exec"}}
	if len(rights.EveryRun) != 0 || fmt.Sprint(rights.BySpec) != fmt.Sprint(want) {
		t.Errorf("every run lacks %v; per spec %v, want %v", rights.EveryRun, rights.BySpec, want)
	}
	for _, o := range rights.Optional {
		if len(o.Denied) == 0 {
			t.Errorf("the account may impersonate %s, which nobody granted it", o.Identity)
		}
	}
	t.Logf("no-exec: %d rights checked, every run lacks %d, per spec %v, %d optional identities denied", rights.Needed, len(rights.EveryRun), rights.BySpec, len(rights.Optional))
	if err := clusterrun.Create(ctx, c.client, r, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	job, err := c.client.BatchV1().Jobs(accountNS).Get(ctx, clusterrun.JobName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sa := job.Spec.Template.Spec.ServiceAccountName; sa != "no-exec" {
		t.Errorf("the pod runs as %q", sa)
	}
	if after := rbacAndAccounts(t, c.client); !slices.Equal(after, before) {
		t.Errorf("the run created RBAC objects, accounts or namespaces: before %d, after %d", len(before), len(after))
	}
	if runs, err := clusterrun.List(ctx, c.client, r.ID); err != nil || len(runs) != 1 || !runs[0].Shared || runs[0].Namespace != accountNS {
		t.Errorf("list %+v, %v", runs, err)
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := clusterrun.Delete(dctx, c.client, r.ID, accountNS, nil, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	if runs, _ := clusterrun.List(ctx, c.client, ""); len(runs) != 0 {
		t.Errorf("left %+v", runs)
	}
	for _, name := range []string{"no-exec", "partial"} {
		if _, err := c.client.CoreV1().ServiceAccounts(accountNS).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("the user's account %s: %v", name, err)
		}
	}
	if after := rbacAndAccounts(t, c.client); !slices.Equal(after, before) {
		t.Errorf("RBAC objects, accounts or namespaces changed by the run")
	}
	if got := secrets(); !slices.Equal(got, secretsBefore) {
		t.Errorf("Secrets before %v, after %v", secretsBefore, got)
	}
}

// TestRunSecretsStayInSpecNamespaces: every Secret a run creates (the
// specs that must show a Secret create to webhooks and policies) is in a
// namespace of that run, labelled with its ID, and none is left once the
// run ended.
func TestRunSecretsStayInSpecNamespaces(t *testing.T) {
	if testing.Short() {
		t.Skip("boots an embedded cluster and runs specs against it")
	}
	c, err := startTestCluster(t)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := c.client.CoreV1().Secrets("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ namespace, name, run string }
	var mu sync.Mutex
	var created []seen
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			s, ok := ev.Object.(*corev1.Secret)
			if !ok || ev.Type != watch.Added {
				continue
			}
			// The namespace's label, read as the Secret appears (the
			// namespace goes with the case).
			run := ""
			if ns, err := c.client.CoreV1().Namespaces().Get(ctx, s.Namespace, metav1.GetOptions{}); err == nil {
				run = ns.Labels[harness.RunLabel]
			}
			mu.Lock()
			created = append(created, seen{s.Namespace, s.Name, run})
			mu.Unlock()
		}
	}()
	report := t.TempDir()
	r := runCLI(t, "run", "--provider", "kubeconfig", "--kubeconfig", c.kubeconfig, "--webhook-host", "127.0.0.1", "--parallel", "1",
		"--focus", "WebhookConfigurationDefaults|PolicyMatching", "--report-dir", report)
	r.mustExit(t, 0)
	mu.Lock()
	got := slices.Clone(created)
	mu.Unlock()
	if len(got) == 0 {
		t.Fatalf("the run created no Secret: the test proves nothing\n%s", r.stdout)
	}
	// The one run on this cluster: every Secret in a namespace labelled
	// with its ID.
	id := got[0].run
	for _, s := range got {
		if s.run == "" || s.run != id {
			t.Errorf("Secret %s/%s is in a namespace of run %q, not of the run %q", s.namespace, s.name, s.run, id)
		}
	}
	// The spec namespaces are deleted with their cases; their Secrets go
	// with them once the namespace controller has emptied them.
	deadline := time.Now().Add(2 * time.Minute)
	for _, s := range got {
		for {
			_, err := c.client.CoreV1().Secrets(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("Secret %s/%s is still there after the run (%v)", s.namespace, s.name, err)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	t.Logf("run %s created %d Secrets, each in a spec namespace of its own, none left: %v", id, len(got), got)
	cancel()
	<-done
}
