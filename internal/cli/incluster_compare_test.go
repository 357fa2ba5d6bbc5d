package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/access"
)

// compareInClusterWithLocal checks an in-cluster run against a local run of
// the same selection on the same cluster: every case must have the local
// state, except that a case the local run could run may be not-supported
// in the cluster when its spec needs a feature the local run had and the
// in-cluster run has not (the reference initializers, the apiservers'
// metrics, the audit logs: what the pod cannot reach). It returns how many
// cases had the same state and one line per difference.
func compareInClusterWithLocal(local, inCluster results.Results) (same int, differences []string) {
	lost := map[string]bool{}
	had := runFeatures(inCluster)
	for _, f := range runFeatures(local) {
		if !slices.Contains(had, f) {
			lost[f] = true
		}
	}
	key := func(s results.Spec) string { return s.Suite + "/" + s.ShortName + ": " + s.Name }
	cases := map[string]results.Spec{}
	for _, s := range inCluster.Specs {
		cases[key(s)] = s
	}
	for _, l := range local.Specs {
		c, ok := cases[key(l)]
		delete(cases, key(l))
		switch {
		case !ok:
			differences = append(differences, fmt.Sprintf("%s: %s in the local run, absent in the cluster", key(l), l.State))
		case c.State == l.State:
			same++
		case c.State == results.NotSupported && l.State != results.Failed && slices.ContainsFunc(l.Features, func(f string) bool { return lost[f] }):
		default:
			differences = append(differences, fmt.Sprintf("%s: %s in the local run, %s in the cluster (%s)", key(l), l.State, c.State, c.Message))
		}
	}
	for k, c := range cases {
		differences = append(differences, fmt.Sprintf("%s: %s in the cluster, absent in the local run", k, c.State))
	}
	slices.Sort(differences)
	return same, differences
}

func runFeatures(r results.Results) []string {
	return append(slices.Clone(r.Features.Declared), r.Features.Claimed...)
}

// TestCompareInClusterWithLocal: the kind test's comparison accepts only a
// not-supported case whose spec needs a feature the cluster run lacks.
func TestCompareInClusterWithLocal(t *testing.T) {
	spec := func(name string, state results.State, feats ...string) results.Spec {
		return results.Spec{Suite: "s", ShortName: name, Name: "case", State: state, Features: feats}
	}
	local := results.Results{Features: results.Features{Declared: []string{"ReferenceInitializers", "NodeAdmission"}},
		Specs: []results.Spec{spec("A", results.Passed), spec("Init", results.Passed, "ReferenceInitializers"),
			spec("Node", results.Passed, "NodeAdmission"), spec("Gone", results.Passed)}}
	inCluster := results.Results{Features: results.Features{Claimed: []string{"NodeAdmission"}},
		Specs: []results.Spec{spec("A", results.Passed), spec("Init", results.NotSupported, "ReferenceInitializers"),
			spec("Node", results.NotSupported, "NodeAdmission"), spec("Extra", results.Passed)}}
	same, diff := compareInClusterWithLocal(local, inCluster)
	if same != 1 {
		t.Errorf("same %d, want 1", same)
	}
	want := []string{"s/Extra: case: passed in the cluster, absent in the local run",
		"s/Gone: case: passed in the local run, absent in the cluster",
		"s/Node: case: passed in the local run, not-supported in the cluster ()"}
	if strings.Join(diff, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(diff, "\n"), strings.Join(want, "\n"))
	}
}

// TestCompareWithAdminForgivesOnlyOptionalIdentities: the least-privilege
// test's comparison accepts a not-supported case only for an optional
// identity its spec declares, and fails where no case lacked the right.
func TestCompareWithAdminForgivesOnlyOptionalIdentities(t *testing.T) {
	admin := identity.Identity{Name: "cluster-admin", User: "admission-conformance:cel-admin", Group: []string{"system:masters"}}
	optional := []access.Optional{{Identity: admin, Specs: []string{"CEL"}}}
	c := func(short, name string, state results.State, msg string) results.Spec {
		return results.Spec{Suite: "s", ShortName: short, Name: name, State: state, Message: msg}
	}
	lacking := "not supported: impersonates " + admin.String() + " (why); the run's user may not impersonate groups system:masters"
	adminRun := results.Results{Specs: []results.Spec{c("CEL", "as admin", results.Passed, ""), c("CEL", "as user", results.Passed, ""),
		c("Other", "case", results.Passed, "")}}
	user := results.Results{Specs: []results.Spec{c("CEL", "as admin", results.NotSupported, lacking), c("CEL", "as user", results.Passed, ""),
		c("Other", "case", results.Passed, "")}}
	if same, diff := compareWithAdmin(adminRun, user, optional); same != 3 || len(diff) != 0 {
		t.Errorf("the expected run: same %d, differences %q", same, diff)
	}
	// The run impersonated the admin without the right: nothing was not supported.
	if _, diff := compareWithAdmin(adminRun, adminRun, optional); len(diff) != 1 || !strings.Contains(diff[0], "no case of CEL") {
		t.Errorf("a run that was not refused the admin: differences %q", diff)
	}
	// A spec that does not declare the identity may not be forgiven.
	user.Specs[2] = c("Other", "case", results.NotSupported, lacking)
	if _, diff := compareWithAdmin(adminRun, user, optional); len(diff) != 2 {
		t.Errorf("a case of a spec that does not declare the identity: differences %q", diff)
	}
}
