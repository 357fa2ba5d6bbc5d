package clusterrun

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestParseAccountSaysWhatIsWrong: every bad --service-account value gets
// one line naming the problem and what to give.
func TestParseAccountSaysWhatIsWrong(t *testing.T) {
	a, err := ParseAccount("conformance/runner")
	if err != nil || a != (Account{Namespace: "conformance", Name: "runner"}) || a.String() != "conformance/runner" {
		t.Fatalf("%+v, %v", a, err)
	}
	if s := a.Subject(); s.User != "system:serviceaccount:conformance:runner" ||
		strings.Join(s.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:conformance,system:authenticated" {
		t.Errorf("subject %+v", s)
	}
	for in, want := range map[string]string{
		"runner":               "has no '/'",
		"/runner":              "both parts",
		"conformance/":         "both parts",
		"Conformance/runner":   "not a namespace name",
		"conformance/Runner":   "not a service account name",
		"conformance/a/b":      "not a service account name",
		"":                     "has no '/'",
		"conformance/ runner ": "not a service account name",
	} {
		_, err := ParseAccount(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", in, err, want)
		}
	}
}

// accountRun is a run under the user's service account conformance/runner.
func accountRun(t *testing.T) *Run {
	return newRun(t, WithServiceAccount(Account{Namespace: "conformance", Name: "runner"}))
}

// rbacOrNamespaceWrites are the creates a run under the user's service
// account must never make.
func rbacOrNamespaceWrites(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if a.GetVerb() != "create" {
			continue
		}
		switch a.GetResource().Resource {
		case "namespaces", "serviceaccounts", "clusterroles", "clusterrolebindings", "roles", "rolebindings":
			out = append(out, a.GetResource().Resource)
		}
	}
	return out
}

// TestRunUnderAnAccountCreatesNoRBAC: under the user's service account the
// run creates its Service, options ConfigMap and Job in the account's
// namespace, the Job's pod runs as that account, no namespace, account,
// role or binding is created; List finds the run there, and Delete
// removes exactly its objects, leaving the namespace and the user's own.
func TestRunUnderAnAccountCreatesNoRBAC(t *testing.T) {
	ctx := context.Background()
	users := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "users-own", Namespace: "conformance"}}
	client := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "conformance"}}, users)
	serviceIPs(client)
	r := accountRun(t)
	if r.OwnsNamespace() || r.NamespaceName() != "conformance" || r.Account().Name != "runner" {
		t.Fatalf("run %+v", r)
	}
	if err := Create(ctx, client, r, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	if w := rbacOrNamespaceWrites(client); len(w) > 0 {
		t.Errorf("created %v", w)
	}
	job, err := client.BatchV1().Jobs("conformance").Get(ctx, JobName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sa := job.Spec.Template.Spec.ServiceAccountName; sa != "runner" {
		t.Errorf("the pod runs as %q", sa)
	}
	options, err := client.CoreV1().ConfigMaps("conformance").Get(ctx, OptionsName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if role := optionsRole(t, options); role.PublishResults != "conformance" {
		t.Errorf("the pod publishes to %q", role.PublishResults)
	}
	runs, err := List(ctx, client, "")
	if err != nil || len(runs) != 1 || !runs[0].Shared || runs[0].Namespace != "conformance" || !runs[0].Running {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	// What the pod publishes goes with the run.
	results := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ResultsName, Namespace: "conformance", Labels: r.Labels()}}
	if _, err := client.CoreV1().ConfigMaps("conformance").Create(ctx, results, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := Delete(dctx, client, r.ID, runs[0].Namespace, nil, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	if runs, _ := List(ctx, client, ""); len(runs) != 0 {
		t.Errorf("left %+v", runs)
	}
	if left, _ := runObjects(ctx, client, "conformance", RunLabel); len(left) != 0 {
		t.Errorf("left %+v", left)
	}
	if _, err := client.CoreV1().ConfigMaps("conformance").Get(ctx, users.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the user's own config map: %v", err)
	}
	if _, err := client.CoreV1().Namespaces().Get(ctx, "conformance", metav1.GetOptions{}); err != nil {
		t.Errorf("the account's namespace: %v", err)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "delete" && a.GetResource().Resource == "namespaces" {
			t.Error("deleted a namespace")
		}
	}
}

// TestRunUnderAnAccountLeavesWhatIsNotItsOwn: a second run in a namespace
// that holds one is refused before anything is created; a Service of the
// run's name that is the user's is never deleted; a failed Create removes
// only what it made.
func TestRunUnderAnAccountLeavesWhatIsNotItsOwn(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	serviceIPs(client)
	first := accountRun(t)
	if err := Create(ctx, client, first, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	second, err := New("5e6f7a8b", "registry.example/run-conformance:v1", WithOptions(roleAsJSON),
		WithServiceAccount(Account{Namespace: "conformance", Name: "runner"}))
	if err != nil {
		t.Fatal(err)
	}
	before := len(client.Actions())
	err = Create(ctx, client, second, logr.Discard())
	if err == nil || !strings.Contains(err.Error(), "already holds in-cluster run "+first.ID) {
		t.Fatalf("a second run in the namespace: %v", err)
	}
	for _, a := range client.Actions()[before:] {
		if a.GetVerb() != "list" {
			t.Errorf("the refused run did %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}

	theirs := fake.NewClientset(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: "conformance"}})
	if err := Create(ctx, theirs, accountRun(t), logr.Discard()); err == nil || !strings.Contains(err.Error(), "create service") {
		t.Fatalf("a Service of the run's name: %v", err)
	}
	if _, err := theirs.CoreV1().Services("conformance").Get(ctx, ServiceName, metav1.GetOptions{}); err != nil {
		t.Errorf("the user's Service: %v", err)
	}

	failing := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "users-own", Namespace: "conformance"}})
	serviceIPs(failing)
	failing.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("jobs are forbidden")
	})
	if err := Create(ctx, failing, accountRun(t), logr.Discard()); err == nil || !strings.Contains(err.Error(), "create job") {
		t.Fatalf("error %v", err)
	}
	if left, _ := runObjects(ctx, failing, "conformance", RunLabel); len(left) != 0 {
		t.Errorf("left after a failed create: %+v", left)
	}
	if _, err := failing.CoreV1().ConfigMaps("conformance").Get(ctx, "users-own", metav1.GetOptions{}); err != nil {
		t.Errorf("the user's own config map: %v", err)
	}
}
