package clusterrun

import (
	"context"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
)

// authorizer answers the fake's access reviews: the user may do all but
// userDenies, the account all but accountDenies (as access.Access.String
// names them); reviews of anyone else fail the test.
func authorizer(t *testing.T, client *fake.Clientset, userDenies, accountDenies []string) {
	name := func(a *authorizationv1.ResourceAttributes) string {
		return access.Access{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}.String()
	}
	client.PrependReactor("create", "selfsubjectaccessreviews", func(act k8stesting.Action) (bool, runtime.Object, error) {
		r := act.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		r.Status.Allowed = !slices.Contains(userDenies, name(r.Spec.ResourceAttributes))
		return true, r, nil
	})
	client.PrependReactor("create", "subjectaccessreviews", func(act k8stesting.Action) (bool, runtime.Object, error) {
		r := act.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		if r.Spec.User != "system:serviceaccount:conformance:runner" || !slices.Contains(r.Spec.Groups, "system:serviceaccounts:conformance") {
			t.Errorf("a review of %s %v", r.Spec.User, r.Spec.Groups)
		}
		if a := r.Spec.ResourceAttributes; a.Namespace != "" {
			t.Errorf("%s checked in namespace %s only: the spec namespaces are generated", name(a), a.Namespace)
		}
		r.Status.Allowed = !slices.Contains(accountDenies, name(r.Spec.ResourceAttributes))
		return true, r, nil
	})
}

// TestCheckAccountSortsWhatTheAccountLacks: a right every run needs is
// every run's, a right of two specs is charged to them, an optional
// identity's right to its spec; a missing account and a user who may not
// ask are one-line errors.
func TestCheckAccountSortsWhatTheAccountLacks(t *testing.T) {
	ctx := context.Background()
	specs := []spec.Spec{{ShortName: "ConnectReachesAdmission"}, {ShortName: "ReviewRequestContent"},
		{ShortName: "PolicyCELVariables", Impersonates: []identity.Name{identity.CELLimitedUser, identity.ClusterAdmin}}, {ShortName: "Plain"}}
	r := newRun(t, WithSpecs(specs), WithServiceAccount(Account{Namespace: "conformance", Name: "runner"}))
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "runner", Namespace: "conformance"}}

	client := fake.NewClientset(account)
	authorizer(t, client, nil, []string{"create pods/exec", "impersonate groups system:masters"})
	got, err := CheckAccount(ctx, client, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.EveryRun) != 0 || got.Needed != len(r.PodAccess()) {
		t.Errorf("every run lacks %v of %d", got.EveryRun, got.Needed)
	}
	if want := map[string][]string{"ConnectReachesAdmission": {"create pods/exec"}, "ReviewRequestContent": {"create pods/exec"}}; !mapsEqual(got.BySpec, want) {
		t.Errorf("per spec %v, want %v", got.BySpec, want)
	}
	if len(got.Optional) != 1 || got.Optional[0].Identity.Name != identity.ClusterAdmin ||
		!slices.Equal(got.Optional[0].Denied, []string{"impersonate groups system:masters"}) {
		t.Errorf("optional %+v", got.Optional)
	}

	client = fake.NewClientset(account)
	authorizer(t, client, nil, []string{"create namespaces", "impersonate users admission-conformance:cel-limited"})
	got, err = CheckAccount(ctx, client, r)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.EveryRun, []string{"create namespaces"}) || !slices.Equal(got.BySpec["PolicyCELVariables"], []string{"impersonate users admission-conformance:cel-limited"}) {
		t.Errorf("every run %v, per spec %v", got.EveryRun, got.BySpec)
	}

	for what, c := range map[string]struct {
		objects    []runtime.Object
		userDenies []string
		want       string
	}{
		"no account":              {want: "no such service account: create it (kubectl create serviceaccount runner --namespace conformance)"},
		"the user may not review": {objects: []runtime.Object{account}, userDenies: []string{"create subjectaccessreviews.authorization.k8s.io"}, want: "may not create subjectaccessreviews"},
		"the user may not create": {objects: []runtime.Object{account}, userDenies: []string{"create jobs.batch"}, want: "may not create jobs.batch (in namespace conformance)"},
	} {
		client := fake.NewClientset(c.objects...)
		authorizer(t, client, c.userDenies, nil)
		_, err := CheckAccount(ctx, client, r)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", what, err, c.want)
		}
		for _, a := range client.Actions() {
			if a.GetVerb() == "create" && !strings.HasSuffix(a.GetResource().Resource, "accessreviews") {
				t.Errorf("%s: created %s", what, a.GetResource().Resource)
			}
		}
	}
}

func mapsEqual(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
