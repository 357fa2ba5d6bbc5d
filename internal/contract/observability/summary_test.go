package observability

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteTextMarksUndecidedAndSummarizes(t *testing.T) {
	inv := Inventory{Module: "k8s.io/apiserver v9.9.9",
		Annotations: []Annotation{{Key: "a.admission.k8s.io/{x}", Level: "Metadata"}},
		Metrics:     []Metric{{Name: "apiserver_admission_m", Type: "counter", Stability: "ALPHA", Labels: []string{"name"}}, {Name: "apiserver_admission_n", Type: "gauge", Stability: "BETA"}},
		Forwarders:  []Forwarder{{Site: "pkg/x.go f", Call: "a.AddAnnotation"}},
	}
	table := map[string]Decision{
		"annotation a.admission.k8s.io/{x}": c("b.clause", "a.clause").WithGap("half of it"),
		"metric apiserver_admission_m":      outOfScope("why not"),
		"forwarder pkg/x.go f":              {Gap: "nothing yet"},
	}
	var b bytes.Buffer
	if err := writeText(&b, inv, table); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  a.admission.k8s.io/{x}  [level Metadata]\n      clauses: a.clause, b.clause\n      gap: half of it\n",
		"  apiserver_admission_m  [counter, ALPHA] {name}\n      out of scope: why not\n",
		"  apiserver_admission_n  [gauge, BETA] {}\n      UNMAPPED\n",
		"  pkg/x.go f  (a.AddAnnotation)\n      gap: nothing yet\n",
		"\nk8s.io/apiserver v9.9.9 admission observability: 1 audit annotation keys, 2 metrics and 1 annotation forwarders: 1 mapped to clauses (1 of them with a gap), 1 with only a gap, 1 out of scope, 1 unmapped\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestPinnedTextHasNoUnmapped(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "UNMAPPED") {
		t.Errorf("the pinned inventory has undecided entries:\n%s", b.String())
	}
}
