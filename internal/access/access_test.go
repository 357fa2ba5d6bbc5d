package access

import (
	"slices"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// TestImpersonationIsByNameOnly: no impersonation right is granted for any
// user, group or uid; a key of extras is granted for any value only if it
// is the harness's own per-case key.
func TestImpersonationIsByNameOnly(t *testing.T) {
	for _, id := range identity.All() {
		for _, a := range Impersonation(id) {
			if a.Verb != "impersonate" {
				t.Errorf("%s: %s", id.Name, a)
			}
			if a.Name == "" && !(a.Resource == "userextras" && a.Subresource == identity.CaseExtra) {
				t.Errorf("%s: %s names nobody: the right would cover everyone", id.Name, a)
			}
		}
	}
}

// TestOptionalIdentitiesAreAskedOnlyWhenSelected: an own identity's rights
// are needed, an optional one's are only offered, and neither is asked for
// when no selected spec declares it.
func TestOptionalIdentitiesAreAskedOnlyWhenSelected(t *testing.T) {
	plain := spec.Spec{ShortName: "Plain"}
	user := spec.Spec{ShortName: "UsesUser", Impersonates: []identity.Name{identity.UserInfoUser}}
	admin := spec.Spec{ShortName: "UsesAdmin", Impersonates: []identity.Name{identity.CELLimitedUser, identity.ClusterAdmin}}
	own, optional := ForSpecs([]spec.Spec{plain})
	if len(own) != 0 || len(optional) != 0 {
		t.Fatalf("a spec impersonating nobody needs %v, offers %v", own, optional)
	}
	own, optional = ForSpecs([]spec.Spec{plain, user, admin})
	var names []string
	for _, a := range own {
		names = append(names, a.String()+" for "+a.NeededBy())
		if strings.Contains(a.Name, "system:") {
			t.Errorf("own rights hold %s", a)
		}
	}
	for _, want := range []string{
		"impersonate users admission-conformance:userinfo for UsesUser",
		"impersonate users admission-conformance:cel-limited for UsesAdmin",
		"impersonate groups admission-conformance:userinfo-group for UsesUser",
		"impersonate userextras/scopes.authentication.k8s.io read for UsesUser",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("own rights %v lack %q", names, want)
		}
	}
	if len(optional) != 1 || optional[0].Identity.Name != identity.ClusterAdmin || !slices.Equal(optional[0].Specs, []string{"UsesAdmin"}) {
		t.Fatalf("optional %+v", optional)
	}
	var groups []string
	for _, a := range optional[0].Access {
		if a.Resource == "groups" {
			groups = append(groups, a.Name)
		}
	}
	if !slices.Equal(groups, []string{"system:masters"}) {
		t.Errorf("the admin's groups %v", groups)
	}
}
