package generate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Outcome is what happened to a generated mutant.
type Outcome string

// The outcomes.
const (
	// Killed: a case of the mutant's specs failed.
	Killed Outcome = "killed"
	// KilledAtStart: the cluster did not come up (the run exited 2 before
	// any case): every run on that implementation fails.
	KilledAtStart Outcome = "killed at start-up"
	// Survived: every selected case ran and passed.
	Survived Outcome = "SURVIVED"
	// Equivalent: survived, and equivalent.yaml says why no API request can
	// tell it from the pinned source.
	Equivalent Outcome = "equivalent"
	// KilledByTest: every selected case passed, but a test of the harness
	// named in harness-tests.yaml fails on the mutant: a behaviour no spec
	// of a run can observe (an apiserver that must refuse to start; a spec
	// cannot restart the run's apiservers), checked by a test that starts
	// its own.
	KilledByTest Outcome = "killed by a harness test"
	// NoVerdict: nothing ran, or the run timed out or broke.
	NoVerdict Outcome = "no verdict"
)

// Verdict is one generated mutant's result.
type Verdict struct {
	Mutant
	Outcome Outcome  `json:"outcome"`
	Killers []string `json:"killers,omitempty"`
	Detail  string   `json:"detail,omitempty"`
	// RunSeconds is the mutant's run, cluster start included.
	RunSeconds float64 `json:"runSeconds"`
}

// Kept is the generated mutants' results the repository keeps
// (hack/mutants/generated/verdicts.json): how the sample was drawn and
// every verdict.
type Kept struct {
	// Modules are the mutated modules' versions.
	Modules map[string]string `json:"modules"`
	Seed    int64             `json:"seed"`
	// Candidates is how many sites the covered statements offered, by
	// operator; the sample is drawn from them.
	Candidates map[Operator]int `json:"candidates"`
	// OutOfScope is how many sites on covered statements were left out of
	// the candidates, by compiled-in plugin the release table decides out
	// of scope.
	OutOfScope map[string]int `json:"outOfScope,omitempty"`
	// Sample is the drawn mutants' keys (Site.Key) in their order: mutant n
	// is Sample[n-1]. A later campaign of the same seed and modules runs
	// these again instead of drawing anew, because a new coverage run can
	// cover a few blocks more or less (a race that happened or not), and a
	// new draw over another set of candidates is another sample.
	Sample   []string  `json:"sample,omitempty"`
	Verdicts []Verdict `json:"verdicts"`
}

// KeptSample returns the sites of a kept sample, looked up by key among
// sites; every key must be found.
func KeptSample(keys []string, sites []Site) ([]Site, error) {
	byKey := make(map[string]Site, len(sites))
	for _, s := range sites {
		byKey[s.Key()] = s
	}
	out := make([]Site, 0, len(keys))
	var missing []string
	for _, k := range keys {
		s, ok := byKey[k]
		if !ok {
			missing = append(missing, k)
			continue
		}
		out = append(out, s)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%d mutant(s) of the kept sample are no longer sites on covered statements (first: %s)", len(missing), missing[0])
	}
	return out, nil
}

// Score is the share of non-equivalent mutants killed.
func (k Kept) Score() (killed, total int) {
	for _, v := range k.Verdicts {
		switch v.Outcome {
		case Killed, KilledAtStart, KilledByTest:
			killed++
			total++
		case Survived, NoVerdict:
			total++
		}
	}
	return killed, total
}

// ReadKept reads verdicts.json.
func ReadKept(file string) (Kept, error) {
	var k Kept
	data, err := os.ReadFile(file)
	if err != nil {
		return k, err
	}
	if err := json.Unmarshal(data, &k); err != nil {
		return k, fmt.Errorf("%s: %w", file, err)
	}
	return k, nil
}

// WriteKept writes verdicts.json, one mutant a line for readable diffs.
func WriteKept(file string, k Kept) error {
	data, err := json.MarshalIndent(k, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// EquivalentReason is why a surviving mutant cannot be told apart through
// the API (equivalent.yaml).
type EquivalentReason struct {
	// Key is the mutant's Site.Key.
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// ReadEquivalent reads equivalent.yaml: a missing file is an empty list.
func ReadEquivalent(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var list []EquivalentReason
	if err := yaml.UnmarshalStrict(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	out := map[string]string{}
	for _, e := range list {
		if strings.TrimSpace(e.Reason) == "" {
			return nil, fmt.Errorf("%s: %s has no reason", file, e.Key)
		}
		if _, dup := out[e.Key]; dup {
			return nil, fmt.Errorf("%s: %s is listed twice", file, e.Key)
		}
		out[e.Key] = e.Reason
	}
	return out, nil
}

// WriteTable writes the verdicts as Markdown: the score, the counts per
// operator and outcome, and a row for every mutant that was not killed.
func WriteTable(w io.Writer, k Kept, equivalent map[string]string) error {
	var b strings.Builder
	killed, total := k.Score()
	fmt.Fprintf(&b, "%d generated mutants (seed %d, %s): **%d killed of %d non-equivalent (score %.1f %%)**, %d equivalent.\n\n",
		len(k.Verdicts), k.Seed, versions(k.Modules), killed, total, 100*float64(killed)/float64(max(total, 1)), count(k, Equivalent))
	b.WriteString("| operator | candidates | sampled | killed | killed at start-up | killed by a harness test | survived | equivalent | no verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, op := range Operators {
		row := map[Outcome]int{}
		n := 0
		for _, v := range k.Verdicts {
			if v.Operator == op {
				row[v.Outcome]++
				n++
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", op, k.Candidates[op], n, row[Killed], row[KilledAtStart], row[KilledByTest], row[Survived], row[Equivalent], row[NoVerdict])
	}
	b.WriteString("\n| # | site | function | mutation | outcome | why |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, v := range k.Verdicts {
		if v.Outcome == Killed || v.Outcome == KilledAtStart {
			continue
		}
		why := v.Detail
		if r, ok := equivalent[v.Key()]; ok {
			why = r
		}
		fmt.Fprintf(&b, "| %d | `%s:%d` | %s | `%s` → `%s` | %s | %s |\n", v.ID, trimModule(v.File), v.Line, v.Func,
			esc(v.Original), esc(v.Mutated), v.Outcome, esc(why))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func count(k Kept, o Outcome) int {
	n := 0
	for _, v := range k.Verdicts {
		if v.Outcome == o {
			n++
		}
	}
	return n
}

func versions(m map[string]string) string {
	var parts []string
	for mod, v := range m {
		parts = append(parts, mod+"@"+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func trimModule(file string) string {
	for _, p := range []string{"k8s.io/apiserver/", "k8s.io/kubernetes/"} {
		if rest, ok := strings.CutPrefix(file, p); ok {
			return rest
		}
	}
	return file
}

func esc(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'").Replace(s)
}

// HarnessTest is a test of the harness that kills a mutant no spec can
// (harness-tests.yaml): go test -run '^Test$' ./Package in the kit's
// harness copy, with the mutant switched on.
type HarnessTest struct {
	// Key is the mutant's Site.Key.
	Key     string `json:"key"`
	Package string `json:"package"`
	Test    string `json:"test"`
	// Why no spec of a run can observe it.
	Why string `json:"why"`
}

// ReadHarnessTests reads harness-tests.yaml: a missing file is an empty
// list.
func ReadHarnessTests(file string) (map[string]HarnessTest, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]HarnessTest{}, nil
	}
	if err != nil {
		return nil, err
	}
	var list []HarnessTest
	if err := yaml.UnmarshalStrict(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	out := map[string]HarnessTest{}
	for _, t := range list {
		if t.Key == "" || t.Package == "" || t.Test == "" || strings.TrimSpace(t.Why) == "" {
			return nil, fmt.Errorf("%s: every entry needs key, package, test and why (%+v)", file, t)
		}
		if _, dup := out[t.Key]; dup {
			return nil, fmt.Errorf("%s: %s is listed twice", file, t.Key)
		}
		out[t.Key] = t
	}
	return out, nil
}
