package generate

import (
	"os"
	"testing"
)

// TestKeptVerdictsAreConsistent checks the kept campaign
// (hack/mutants/generated): a sample of at least 200, every verdict one of
// its mutants (a campaign in progress keeps the verdicts so far), every mutant judged
// equivalent has its reason in equivalent.yaml, and equivalent.yaml names
// only mutants of the sample. Survivors still open are logged: each is
// killed by a new spec (and the mutant run again) or recorded equivalent.
func TestKeptVerdictsAreConsistent(t *testing.T) {
	const dir = "../generated"
	if _, err := os.Stat(dir + "/verdicts.json"); os.IsNotExist(err) {
		t.Skip("no campaign kept yet: make coverage, then make mutation-generated")
	}
	kept, err := ReadKept(dir + "/verdicts.json")
	if err != nil {
		t.Fatal(err)
	}
	equivalent, err := ReadEquivalent(dir + "/equivalent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Sample) < 200 {
		t.Errorf("the kept campaign's sample has %d mutants, it must have at least 200", len(kept.Sample))
	}
	inSample := map[string]bool{}
	for _, k := range kept.Sample {
		inSample[k] = true
	}
	open := 0
	for _, v := range kept.Verdicts {
		if v.ID < 1 || v.ID > len(kept.Sample) || kept.Sample[v.ID-1] != v.Key() {
			t.Errorf("verdict %d (%s) is not mutant %d of the kept sample", v.ID, v.Key(), v.ID)
		}
		_, listed := equivalent[v.Key()]
		switch v.Outcome {
		case Equivalent:
			if !listed {
				t.Errorf("mutant %d (%s) is judged equivalent without a reason in equivalent.yaml", v.ID, v.Key())
			}
		case Survived, NoVerdict:
			if listed {
				t.Errorf("mutant %d (%s) is listed equivalent but judged %s: make mutation-generated MUTATION_ARGS=--table", v.ID, v.Key(), v.Outcome)
			}
			open++
		}
	}
	for key := range equivalent {
		if !inSample[key] {
			t.Errorf("equivalent.yaml names %s, which is not in the sample", key)
		}
	}
	harnessTests, err := ReadHarnessTests(dir + "/harness-tests.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for key := range harnessTests {
		if !inSample[key] {
			t.Errorf("harness-tests.yaml names %s, which is not in the sample", key)
		}
	}
	for _, v := range kept.Verdicts {
		if _, listed := harnessTests[v.Key()]; v.Outcome == KilledByTest && !listed {
			t.Errorf("mutant %d (%s) is judged killed by a harness test harness-tests.yaml does not name", v.ID, v.Key())
		}
	}
	killed, total := kept.Score()
	t.Logf("%d of %d sampled mutants judged, score %d/%d, %d survivors or without verdict still open", len(kept.Verdicts), len(kept.Sample), killed, total, open)
}
