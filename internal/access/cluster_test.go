package access_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/accesstest"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	// Every spec registers itself: the rights are those of the full selection.
	_ "github.com/admission-conformance/admission-conformance/suites/initializers"
	_ "github.com/admission-conformance/admission-conformance/suites/nodeadmit"
	_ "github.com/admission-conformance/admission-conformance/suites/ordering"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks"
)

// runner is the user bound to exactly the rights `run --plan` prints.
const runner = "admission-conformance:least-privilege-test"

// TestPrintedRightsOnEmbeddedCluster binds a user to exactly the
// ClusterRole `run --plan` prints for the full selection (no optional
// rights) on an embedded cluster and asks the cluster's own authorizer,
// with SubjectAccessReviews, what that user may do: every printed right,
// but no impersonation of system:masters, of a node or of anyone the
// harness does not name, no read of any secret, and no write of a
// cluster-scoped resource beyond those the harness's objects are.
func TestPrintedRightsOnEmbeddedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("boots an embedded cluster")
	}
	ctx := context.Background()
	c, err := embedded.New(embedded.WithBaseDir(t.TempDir())).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop(context.Background()) }()
	admin, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	needed := access.Needed(false, spec.All())
	bind := func(user string, rights []access.Access) access.Subject {
		t.Helper()
		subject, _, err := accesstest.BindUser(ctx, admin, user, rights) // the cluster goes with the test
		if err != nil {
			t.Fatal(err)
		}
		return subject
	}
	rep, err := accesstest.Check(ctx, admin, bind(runner, needed), needed)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Error(p)
	}
	t.Logf("%d printed rights granted; %d denials and %d cluster-scoped writes checked", rep.Granted, rep.Denials, rep.ClusterWrites)

	// The check can fail: the rights the harness asked for before issue 40
	// (impersonating any group) and one cluster-scoped write too many.
	broad := append(slices.Clone(needed), access.Access{Verb: "impersonate", Resource: "groups"},
		access.Access{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"})
	rep, err = accesstest.Check(ctx, admin, bind(runner+"-broad", broad), needed)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"impersonate group system:masters", "create clusterrolebindings.rbac.authorization.k8s.io"} {
		if !slices.ContainsFunc(rep.Problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("a user who may also impersonate any group and create cluster role bindings: no problem names %q; problems: %q", want, rep.Problems)
		}
	}
}
