package fields

import (
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/contract"
)

// TestEveryFieldIsDecided is the guard: a field path of the pinned types
// the table does not decide, or a table entry the pinned types no longer
// have, fails the build until someone decides it.
func TestEveryFieldIsDecided(t *testing.T) {
	inv := Inventory()
	if len(inv) < 200 {
		t.Fatalf("the inventory has %d paths; the walk lost most of the admission API", len(inv))
	}
	have := map[Path]bool{}
	for _, p := range inv {
		have[p] = true
		if _, ok := Table[string(p)]; !ok {
			t.Errorf("field %s of the pinned k8s.io/api or admission CEL environment is not in the table (internal/contract/fields/table.go, table_cel.go): map it to the clauses that check it, or say why none needs to", p)
		}
	}
	for path := range Table {
		if !have[Path(path)] {
			t.Errorf("table entry %s names no field of the pinned k8s.io/api or admission CEL environment: remove it", path)
		}
	}
}

func TestDecisionsAreWellFormed(t *testing.T) {
	for path, d := range Table {
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		for _, id := range d.Clauses {
			if _, ok := contract.Lookup(id); !ok {
				t.Errorf("%s names clause %s, which the contract does not have", path, id)
			}
		}
	}
}

// TestWalkFindsNestedAndInlinedFields checks the walk on a few paths
// whose shape it must get right: a list of objects, an inlined struct, a
// pointer to a selector, a leaf type.
func TestWalkFindsNestedAndInlinedFields(t *testing.T) {
	inv := map[Path]bool{}
	for _, p := range Inventory() {
		inv[p] = true
		if strings.HasSuffix(string(p), ".kind") && strings.Count(string(p), ".") == 1 {
			t.Errorf("%s: TypeMeta must be skipped", p)
		}
	}
	for _, want := range []Path{
		"MutatingWebhookConfiguration.webhooks[].rules[].operations",              // Rule inlined into RuleWithOperations
		"ValidatingWebhookConfiguration.webhooks[].namespaceSelector.matchLabels", // pointer to a LabelSelector
		"ValidatingAdmissionPolicy.status.conditions",                             // a leaf list
		"AdmissionRequest.userInfo.extra",                                         // a map
		"MutatingAdmissionPolicy.spec.mutations[].applyConfiguration.expression",  // pointer in a list
		"AdmissionResponse.status.details.causes[].field",
	} {
		if !inv[want] {
			t.Errorf("the inventory lacks %s", want)
		}
	}
}

func TestSummaryCounts(t *testing.T) {
	s := Summarize()
	if s.Paths != len(Inventory()) || s.Mapped+s.OnlyGap+s.OutOfScope != s.Paths {
		t.Errorf("summary does not add up: %+v", s)
	}
	if s.Unmapped != 0 {
		t.Errorf("%d unmapped paths", s.Unmapped)
	}
}
