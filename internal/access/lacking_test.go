package access

import (
	"reflect"
	"testing"
)

// TestLackingSplitsEveryRunFromPerSpecRights: a denied right no spec
// claims is every run's; one that specs claim is charged to each of them
// alone; granted rights appear nowhere.
func TestLackingSplitsEveryRunFromPerSpecRights(t *testing.T) {
	needed := []Access{
		{Verb: "create", Resource: "namespaces"},
		{Verb: "create", Resource: "pods", Subresource: "exec", Specs: []string{"A", "B"}},
		{Verb: "create", Resource: "secrets", Specs: []string{"B"}},
		{Verb: "impersonate", Resource: "users", Name: "u", Specs: []string{"C"}},
	}
	denied := []string{"create namespaces", "create pods/exec", "impersonate users u"}
	everyRun, bySpec := Lacking(needed, denied)
	if want := []string{"create namespaces"}; !reflect.DeepEqual(everyRun, want) {
		t.Errorf("every run lacks %v, want %v", everyRun, want)
	}
	want := map[string][]string{"A": {"create pods/exec"}, "B": {"create pods/exec"}, "C": {"impersonate users u"}}
	if !reflect.DeepEqual(bySpec, want) {
		t.Errorf("per spec %v, want %v", bySpec, want)
	}
	if got := SpecNames(bySpec); !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Errorf("spec names %v", got)
	}
	if got := OfSpec(needed, "B"); len(got) != 2 || got[0].Subresource != "exec" || got[1].Resource != "secrets" {
		t.Errorf("rights of B: %v", got)
	}
	if e, s := Lacking(needed, nil); len(e) != 0 || len(s) != 0 {
		t.Errorf("nothing denied, yet lacking %v %v", e, s)
	}
}
