package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/hack/mutants"
	"github.com/admission-conformance/admission-conformance/internal/contract"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/contract/observability"
	"github.com/admission-conformance/admission-conformance/internal/contract/release"
)

// The contract inventory against the spec registry and the mutation kit.
// This package imports every suite, so spec.All() is the full registry. The
// inventory's own tests (rendering, docs/contract.md in sync) are in
// internal/contract, which compiles in seconds.

// knownSpecs is the set of registered ShortNames.
func knownSpecs() map[string]bool {
	known := map[string]bool{}
	for _, s := range spec.All() {
		known[s.ShortName] = true
	}
	return known
}

// TestContractClausesNameExistingSpecs: every spec a clause names exists, so
// a clause marked covered is covered by a real spec. Uncovered clauses, and
// specs no clause names, are logged, not failed.
func TestContractClausesNameExistingSpecs(t *testing.T) {
	known := knownSpecs()
	if len(known) == 0 {
		t.Fatal("the spec registry is empty: the suites are not linked in")
	}
	if err := contract.Check(func(s string) bool { return known[s] }); err != nil {
		t.Error(err)
	}
	all := contract.All()
	named := map[string]bool{}
	var uncovered []string
	for _, c := range all {
		for _, s := range c.Specs {
			named[s] = true
		}
		if !c.Covered() {
			uncovered = append(uncovered, c.ID)
		}
	}
	t.Log(contract.SummaryLine(all))
	if len(uncovered) > 0 {
		t.Logf("uncovered clauses (no spec checks them): %s", strings.Join(uncovered, ", "))
	}
	var unnamed []string
	for s := range known {
		if !named[s] {
			unnamed = append(unnamed, s)
		}
	}
	sort.Strings(unnamed)
	if len(unnamed) > 0 {
		t.Logf("specs no clause names: %s", strings.Join(unnamed, ", "))
	}
}

// TestMutantsNameExistingClausesAndSpecs: every mutant in hack/mutants/*.yaml
// breaks a clause of the inventory and is run against specs that exist. All
// missing clauses and specs are reported in one failure.
func TestMutantsNameExistingClausesAndSpecs(t *testing.T) {
	all, err := mutants.Load(filepath.Join("..", "..", "hack", "mutants"))
	if err != nil {
		t.Errorf("loading the mutants: %v", err)
	}
	known := knownSpecs()
	missingClauses := map[string][]string{} // clause ID -> mutants naming it
	var problems []string
	for _, m := range all {
		if _, ok := contract.Lookup(m.Clause); !ok {
			missingClauses[m.Clause] = append(missingClauses[m.Clause], m.Source+":"+m.Name)
		}
		for _, s := range m.Specs {
			if !known[s] {
				problems = append(problems, fmt.Sprintf("%s: mutant %s names spec %s, which does not exist", m.Source, m.Name, s))
			}
		}
	}
	ids := make([]string, 0, len(missingClauses))
	for id := range missingClauses {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		problems = append(problems, fmt.Sprintf("clause %s does not exist (named by %s)", id, strings.Join(missingClauses[id], ", ")))
	}
	if len(problems) > 0 {
		t.Errorf("%d problem(s) in hack/mutants/*.yaml against internal/contract and the spec registry:\n  %s",
			len(problems), strings.Join(problems, "\n  "))
	}
	t.Logf("%d mutants checked", len(all))
}

// TestListContract: `list --contract` prints the inventory by area with the
// summary line, then the release table with its summary line, --markdown
// prints docs/contract.md, and bad combinations are one-line errors with
// exit code 2.
func TestListContract(t *testing.T) {
	all := contract.All()
	rel, err := release.PinnedReport()
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "list", "--contract")
	r.mustExit(t, 0)
	if !strings.Contains(r.stdout, "\n"+contract.SummaryLine(all)+"\n\nRelease guard: ") {
		t.Errorf("list --contract does not print %q before the release table:\n%s", contract.SummaryLine(all), r.stdout)
	}
	if !strings.HasSuffix(r.stdout, "\n"+rel.Summary+"\n") || !strings.HasSuffix(rel.Summary, ", 0 unknown") {
		t.Errorf("list --contract does not end with the release summary %q (0 unknown):\n%s", rel.Summary, r.stdout)
	}
	for _, want := range []string{string(contract.Ordering) + " (", "order.mutate-before-validate\n", "specs:    MutatingBeforeValidating\n",
		"  ManifestBasedAdmissionControlConfig\n", "  NamespaceLifecycle\n", "  lifecycle.NewPredicateAdmitHandler\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list --contract lacks %q", want)
		}
	}

	// --coverage: the field inventory, ending with its summary (0 unmapped).
	r = runCLI(t, "list", "--contract", "--coverage")
	r.mustExit(t, 0)
	if line := fields.Summarize().Line(); !strings.HasSuffix(r.stdout, "\n"+line+"\n") || !strings.HasSuffix(line, ", 0 unmapped") {
		t.Errorf("list --contract --coverage does not end with %q (0 unmapped):\n%s", line, r.stdout)
	}
	if line := observability.Summarize().Line(); !strings.Contains(r.stdout, line+"\n") {
		t.Errorf("list --contract --coverage lacks the observability summary %q:\n%s", line, r.stdout)
	}
	if !strings.Contains(r.stdout, "\nValidatingWebhookConfiguration\n") || !strings.Contains(r.stdout, "  webhooks[].failurePolicy ") {
		t.Errorf("list --contract --coverage lacks the paths by root:\n%s", r.stdout)
	}

	r = runCLI(t, "list", "--contract", "--markdown")
	r.mustExit(t, 0)
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	if r.stdout != string(docs) {
		t.Errorf("list --contract --markdown differs from docs/contract.md: run `make contract-docs`")
	}

	r = runCLI(t, "list", "--contract", "-o", "json")
	r.mustExit(t, 0)
	if !strings.Contains(r.stdout, `"ID":"order.mutate-before-validate"`) || !strings.Contains(r.stdout, `"Name":"ValidatingAdmissionWebhook"`) {
		t.Errorf("list --contract -o json lacks the clause or the release table:\n%s", r.stdout)
	}

	// --kubernetes: the release table of a kept version, then its changes
	// from the pinned one; 0 unknown for every kept version.
	versions, err := release.StoredVersions()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if v == release.PinnedVersion() {
			continue
		}
		r = runCLI(t, "list", "--contract", "--kubernetes", v)
		r.mustExit(t, 0)
		if !strings.Contains(r.stdout, "Release guard: Kubernetes "+v) || !strings.Contains(r.stdout, "Changes from Kubernetes "+release.PinnedVersion()) ||
			!strings.Contains(r.stdout, ", 0 unknown\n") {
			t.Errorf("list --contract --kubernetes %s: no table of %s with changes from %s and 0 unknown:\n%s", v, v, release.PinnedVersion(), r.stdout)
		}
		if release.IsPreRelease(v) && !strings.Contains(r.stdout, "Release guard: Kubernetes "+v+" (pre-release)") {
			t.Errorf("list --contract --kubernetes %s does not say it is a pre-release", v)
		}
	}
	r = runCLI(t, "list", "--contract", "--kubernetes", release.PinnedVersion())
	r.mustExit(t, 0)
	if !strings.HasSuffix(r.stdout, "\n"+rel.Summary+"\n") || strings.Contains(r.stdout, "Changes from") {
		t.Errorf("list --contract --kubernetes PINNED is not the pinned table")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--contract", "--kubernetes", "v1.99.0"}, "no release inventory of Kubernetes v1.99.0"},
		{[]string{"list", "--contract", "--kubernetes", "1.38"}, "--kubernetes must be a version like"},
		{[]string{"list", "--kubernetes", "v1.37.2"}, "--kubernetes goes with --contract"},
		{[]string{"list", "--contract", "--markdown", "--kubernetes", "v1.37.2"}, "--kubernetes prints a table or json"},
		{[]string{"list", "--contract", "--features"}, "give one"},
		{[]string{"list", "--markdown"}, "--markdown goes with --contract"},
		{[]string{"list", "--contract", "--markdown", "-o", "json"}, "exclude each other"},
		{[]string{"list", "--contract", "-o", "yaml"}, "--output must be table or json"},
	} {
		r := runCLI(t, tc.args...)
		msg := strings.TrimRight(r.stderr, "\n")
		if r.code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line saying %q", tc.args, r.code, msg, tc.want)
		}
	}
}
