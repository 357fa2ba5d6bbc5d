package celenv

import (
	"slices"
	"strings"
	"testing"
)

// TestInventoryIsComplete is the guard on the inventory itself: every
// library, function and macro of the pinned admission environment is
// attributed to a library the inventory knows.
func TestInventoryIsComplete(t *testing.T) {
	inv, err := Pinned()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range inv.Unattributed {
		t.Errorf("the pinned admission CEL environment has %s, which no library celenv knows declares: add its library to celenv.extensions", u)
	}
	if len(inv.Libraries) < 15 || len(inv.Variables) < 20 {
		t.Errorf("the inventory has %d libraries and %d variables; reading the pinned environment lost most of it", len(inv.Libraries), len(inv.Variables))
	}
	want := map[string]bool{VariableEntry(Webhook, "object"): true, VariableEntry(Validating, "params"): true,
		VariableEntry(Mutating, "variables"): true, VariableEntry(Validating, "authorizer.requestResource"): true,
		LibraryEntry("kubernetes.quantity"): true, LibraryEntry("cel.lib.std"): true}
	for _, e := range inv.Entries() {
		delete(want, e)
	}
	for e := range want {
		t.Errorf("the inventory lacks %s", e)
	}
	if slices.Contains(inv.Entries(), VariableEntry(Webhook, "params")) || slices.Contains(inv.Entries(), VariableEntry(Webhook, "variables")) {
		t.Errorf("webhook matchConditions have neither params nor variables, the inventory says they do")
	}
}

func TestUsed(t *testing.T) {
	for _, tc := range []struct {
		ctx        Context
		expression string
		want       []string
	}{
		{Validating, "quantity(object.data.q).isGreaterThan(quantity('1Gi'))",
			[]string{LibraryEntry("kubernetes.quantity"), VariableEntry(Validating, "object")}},
		{Validating, "authorizer.requestResource.check('get').allowed() && variables.x == params.y",
			[]string{LibraryEntry("cel.lib.std"), LibraryEntry("kubernetes.authz"), VariableEntry(Validating, "authorizer.requestResource"),
				VariableEntry(Validating, "params"), VariableEntry(Validating, "variables")}},
		{Webhook, "object.metadata.name.startsWith('a') && request.operation == 'CREATE'",
			[]string{LibraryEntry("cel.lib.std"), VariableEntry(Webhook, "object"), VariableEntry(Webhook, "request")}},
		{Validating, "object.data.all(k, v, v != '')", // a two-variable comprehension
			[]string{LibraryEntry("cel.lib.ext.comprev2"), LibraryEntry("cel.lib.std"), VariableEntry(Validating, "object")}},
		{Validating, "[1, 2].exists(x, x > 1)",
			[]string{LibraryEntry("cel.lib.std")}},
		{Mutating, "[JSONPatch{op: 'add', path: '/data/' + jsonpatch.escapeKey('a/b'), value: 'x'}]",
			[]string{LibraryEntry("cel.lib.std"), LibraryEntry("kubernetes.jsonpatch")}},
		{Validating, "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))",
			[]string{LibraryEntry("kubernetes.net.cidr"), LibraryEntry("kubernetes.net.ip")}},
		{Validating, "object.data.undeclaredFn(", nil}, // does not parse
		{Validating, "noSuchFunction(object) && semver('1.0.0').major() == 1", // does not check: read by name
			[]string{LibraryEntry("cel.lib.std"), LibraryEntry("kubernetes.Semver"), VariableEntry(Validating, "object")}},
	} {
		got := Used(tc.ctx, tc.expression)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("Used(%s, %q):\n got %v\nwant %v", tc.ctx, tc.expression, got, tc.want)
		}
	}
}
