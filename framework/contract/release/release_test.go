package release

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/contract"
)

// TestPinnedInventoryIsDecided is the release guard: every admission gate,
// apiserver plugin and kubelet handler of the pinned Kubernetes has a
// decision, and every decision names something the pinned Kubernetes has.
func TestPinnedInventoryIsDecided(t *testing.T) {
	inv, err := Pinned()
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(inv, Table); err != nil {
		t.Fatal(err)
	}
	r := Build(inv, Table)
	t.Log(r.Summary)
	for _, k := range Kinds {
		if len(r.byKind()[k]) == 0 {
			t.Errorf("the inventory has no %s: the derivation is broken", k)
		}
	}
}

// TestTableClausesExist: every clause the table maps to is registered in
// framework/contract. (The static.*, matching.review-resources-*,
// policy.audit.several-bindings and node.declared-features.* clauses are
// written on other branches; this passes once they are merged.)
func TestTableClausesExist(t *testing.T) {
	if err := CheckClauses(Table); err != nil {
		t.Fatal(err)
	}
}

func TestTableEntriesAreValid(t *testing.T) {
	for _, e := range Table {
		if err := e.Validate(); err != nil {
			t.Error(err)
		}
		for _, reason := range []string{e.OutOfScope, e.NotObservable} {
			if reason != "" && !strings.HasSuffix(reason, ".") {
				t.Errorf("%s %s: the reason is one sentence ending in a period: %q", e.Kind, e.Name, reason)
			}
		}
	}
}

var synthetic = Inventory{Kubernetes: "v9.9.9", Items: []Item{
	{Kind: Gate, Name: "SomeAdmissionGate", Why: "name matches the rule"},
	{Kind: APIServerPlugin, Name: "SomePlugin", Why: "1 of 1 in AllOrderedPlugins"},
	{Kind: KubeletHandlerKind, Name: "lifecycle.NewSomeAdmitHandler", Why: "1 of 1 in the chain"},
}}

var syntheticTable = []Entry{
	mapped(Gate, "SomeAdmissionGate", "order.mutate-before-validate"),
	outOfScope(APIServerPlugin, "SomePlugin", "Not about admission extensions."),
	notObservable(KubeletHandlerKind, "lifecycle.NewSomeAdmitHandler", "Hollow kubelets cannot show it."),
}

func TestCheckAcceptsADecidedInventory(t *testing.T) {
	if err := Check(synthetic, syntheticTable); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFailsOnUnknownItem: a new gate, plugin or handler the table
// does not know fails, naming it and saying how to decide it.
func TestCheckFailsOnUnknownItem(t *testing.T) {
	for _, extra := range []Item{
		{Kind: Gate, Name: "NewWebhookGate", Why: "name matches the rule"},
		{Kind: APIServerPlugin, Name: "NewPlugin", Why: "2 of 2 in AllOrderedPlugins"},
		{Kind: KubeletHandlerKind, Name: "lifecycle.NewOtherAdmitHandler", Why: "2 of 2 in the chain"},
	} {
		inv := synthetic
		inv.Items = append(append([]Item(nil), synthetic.Items...), extra)
		err := Check(inv, syntheticTable)
		if err == nil {
			t.Fatalf("Check accepted an inventory with %s %s the table does not decide", extra.Kind, extra.Name)
		}
		for _, want := range []string{"unknown: Kubernetes v9.9.9 has " + string(extra.Kind) + " " + extra.Name, "add an entry", "out of scope or not observable"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error lacks %q:\n%v", want, err)
			}
		}
		if r := Build(inv, syntheticTable); !strings.HasSuffix(r.Summary, ", 1 unknown") {
			t.Errorf("summary %q does not count the unknown item", r.Summary)
		}
	}
}

// TestCheckFailsOnStaleEntry: an entry for an item the pinned version no
// longer has fails, naming it.
func TestCheckFailsOnStaleEntry(t *testing.T) {
	table := append(append([]Entry(nil), syntheticTable...), outOfScope(Gate, "RemovedGate", "Gone."))
	err := Check(synthetic, table)
	if err == nil || !strings.Contains(err.Error(), "stale: the table decides feature gate RemovedGate") {
		t.Fatalf("Check(stale entry) = %v; want a stale error naming RemovedGate", err)
	}
	if r := Build(synthetic, table); len(r.Stale) != 1 || !strings.HasSuffix(r.Summary, ", 1 stale") {
		t.Errorf("report: stale %v, summary %q", r.Stale, r.Summary)
	}
}

func TestCheckFailsOnInvalidOrDuplicateEntry(t *testing.T) {
	two := Entry{Kind: Gate, Name: "SomeAdmissionGate", Clauses: []string{"a.b"}, OutOfScope: "Both."}
	for _, table := range [][]Entry{
		{two, syntheticTable[1], syntheticTable[2]},
		{{Kind: Gate, Name: "SomeAdmissionGate"}, syntheticTable[1], syntheticTable[2]},
		append(append([]Entry(nil), syntheticTable...), syntheticTable[0]),
	} {
		if err := Check(synthetic, table); err == nil {
			t.Errorf("Check accepted %+v", table)
		}
	}
}

func TestCheckClausesFailsOnUnknownClause(t *testing.T) {
	err := CheckClauses([]Entry{mapped(Gate, "G", "order.mutate-before-validate", "no.such-clause")})
	if err == nil || !strings.Contains(err.Error(), "feature gate G maps to clause no.such-clause") || strings.Contains(err.Error(), "order.mutate-before-validate") {
		t.Fatalf("CheckClauses = %v; want only no.such-clause reported", err)
	}
}

func TestSelectGates(t *testing.T) {
	all := []string{"APIResponseCompression", "FooWebhookThing", "ReadByPlugins", "Reviewed", "PodSecurityStuff"}
	refs := map[string][]string{"ReadByPlugins": {"k8s.io/apiserver/pkg/admission/x.go"}}
	got, err := SelectGates(all, refs, map[string]string{"Reviewed": "because"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range got {
		names = append(names, it.Name+": "+it.Why)
	}
	want := []string{
		"FooWebhookThing: name matches the rule",
		"ReadByPlugins: read by admission code: k8s.io/apiserver/pkg/admission/x.go",
		"Reviewed: reviewed: because",
		"PodSecurityStuff: name matches the rule",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("SelectGates =\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if _, err := SelectGates(all, refs, map[string]string{"FooWebhookThing": "x"}); err == nil || !strings.Contains(err.Error(), "already selected") {
		t.Errorf("a reviewed gate the rule selects: %v", err)
	}
	if _, err := SelectGates(all, refs, map[string]string{"Gone": "x"}); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("a reviewed gate that is gone: %v", err)
	}
}

// TestDeriveKubeletHandlers follows a NewMainKubelet shaped like the
// pinned one: handlers made in place or assigned first, appended under
// conditions, prepended in the final call.
func TestDeriveKubeletHandlers(t *testing.T) {
	src := `package kubelet
func NewMainKubelet() {
	first := allocation.NewFirst(a)
	mgr, evictionHandler := eviction.NewManager(b)
	handlers := []lifecycle.PodAdmitHandler{}
	handlers = append(handlers, evictionHandler)
	if goos == "linux" {
		handlers = append(handlers, lifecycle.NewLinuxOnly())
	} else {
		handlers = append(handlers, lifecycle.NewElse())
	}
	other := []int{}
	other = append(other, 1)
	handlers = append(handlers, klet.cm.GetHandler(logger))
	klet.allocationManager.AddPodAdmitHandlers(append([]lifecycle.PodAdmitHandler{first}, handlers...))
}
`
	path := filepath.Join(t.TempDir(), "kubelet.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := deriveKubeletHandlers(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []KubeletHandler{
		{Constructor: "allocation.NewFirst"},
		{Constructor: "eviction.NewManager"},
		{Constructor: "lifecycle.NewLinuxOnly", Guard: `goos == "linux"`},
		{Constructor: "lifecycle.NewElse", Guard: `!(goos == "linux")`},
		{Constructor: "klet.cm.GetHandler"},
	}
	if len(got) != len(want) {
		t.Fatalf("derived %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("handler %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := os.WriteFile(path, []byte("package kubelet\nfunc NewMainKubelet() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := deriveKubeletHandlers(path); err == nil {
		t.Error("a NewMainKubelet adding no handler was accepted")
	}
}

// TestGeneratedIsUpToDate re-derives from the pinned sources in the module
// cache and compares with zz_generated_pinned.go, so moving the pin without
// `go generate ./framework/contract/release` fails.
func TestGeneratedIsUpToDate(t *testing.T) {
	mods, err := PinnedModules(".")
	if err != nil {
		t.Fatal(err)
	}
	gates := map[string]bool{}
	for _, g := range PinnedGates() {
		gates[g] = true
	}
	d, err := Derive(mods, gates)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(GeneratedFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, d.GoSource()) {
		t.Fatalf("%s is stale for k8s.io/kubernetes %s: run `go generate ./framework/contract/release`", GeneratedFile, mods["k8s.io/kubernetes"].Version)
	}
}

// TestContractDocsUpToDate keeps docs/contract.md what `list --contract
// --markdown` prints: the clause inventory, then the release table.
func TestContractDocsUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "..", "docs", "contract.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s (%v): run `make contract-docs`", path, err)
	}
	r, err := PinnedReport()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteContractMarkdown(&want, contract.All(), r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("docs/contract.md is out of date: run `make contract-docs`")
	}
}

func TestWriteTextAndMarkdown(t *testing.T) {
	r := Build(synthetic, syntheticTable)
	var text, md bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	const summary = "1 gates, 1 apiserver plugins, 1 kubelet handlers: 1 mapped to clauses, 1 out of scope, 1 not observable here, 0 unknown"
	if r.Summary != summary {
		t.Errorf("summary %q, want %q", r.Summary, summary)
	}
	for _, want := range []string{
		"Release guard: Kubernetes v9.9.9", "  SomeAdmissionGate\n    from:     name matches the rule\n    clauses:  order.mutate-before-validate\n",
		"    out of scope: Not about admission extensions.\n", "    not observable here: Hollow kubelets cannot show it.\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.HasSuffix(text.String(), "\n"+summary+"\n") {
		t.Errorf("text does not end with the summary:\n%s", text.String())
	}
	for _, want := range []string{
		"## Release guard: Kubernetes v9.9.9\n", summary + ".\n",
		"| `SomeAdmissionGate` | name matches the rule | `order.mutate-before-validate` |\n",
		"| `lifecycle.NewSomeAdmitHandler` | 1 of 1 in the chain | *not observable here:* Hollow kubelets cannot show it. |\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
