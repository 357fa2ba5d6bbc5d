package release

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/contract"
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
// internal/contract. (The static.*, matching.review-resources-*,
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
// `go generate ./internal/contract/release` fails.
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
		t.Fatalf("%s is stale for k8s.io/kubernetes %s: run `go generate ./internal/contract/release`", GeneratedFile, mods["k8s.io/kubernetes"].Version)
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
	newer, err := NewerReports()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteContractMarkdown(&want, contract.All(), r, newer...); err != nil {
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

// TestStoredInventoriesAreDecided holds the table to every version whose
// inventory is kept (inventories/VERSION.json, written where that version
// is linked): a pre-release's new gate or plugin fails the default build's
// tests too, not only the build of that version.
func TestStoredInventoriesAreDecided(t *testing.T) {
	all, err := Stored()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no stored inventory: run `go generate ./internal/contract/release`")
	}
	for v, inv := range all {
		if err := Check(inv, Table); err != nil {
			t.Errorf("Kubernetes %s: %v", v, err)
			continue
		}
		t.Logf("%s: %s", v, Build(inv, Table).Summary)
	}
}

// TestPinnedInventoryIsStored: the stored inventory of the linked version
// is what the linked version has, so the changes `list --contract
// --kubernetes` prints against it are the real ones.
func TestPinnedInventoryIsStored(t *testing.T) {
	live, err := Pinned()
	if err != nil {
		t.Fatal(err)
	}
	all, err := Stored()
	if err != nil {
		t.Fatal(err)
	}
	stored, ok := all[live.Kubernetes]
	if !ok {
		t.Fatalf("no %s/%s: run `go generate ./internal/contract/release`", InventoryDir, InventoryFile(live.Kubernetes))
	}
	a, _ := EncodeInventory(live)
	b, _ := EncodeInventory(stored)
	if !bytes.Equal(a, b) {
		t.Fatalf("%s/%s is not the linked inventory: run `go generate ./internal/contract/release`", InventoryDir, InventoryFile(live.Kubernetes))
	}
}

func TestEntryForVersions(t *testing.T) {
	for _, c := range []struct {
		e    Entry
		v    string
		want bool
	}{
		{Entry{}, "v1.37.2", true},
		{Entry{Since: "1.38"}, "v1.37.2", false},
		{Entry{Since: "1.38"}, "v1.38.0-beta.0", true},
		{Entry{Until: "1.38"}, "v1.38.0-beta.0", false},
		{Entry{Until: "1.38"}, "v1.37.2", true},
		{Entry{Since: "1.9", Until: "1.10"}, "v1.9.0", true},
		{Entry{Since: "1.36", Until: "1.38"}, "v1.38.0", false},
		{Entry{Since: "1.38"}, "v9.9.9", false},
	} {
		if got := c.e.For(c.v); got != c.want {
			t.Errorf("%+v.For(%s) = %v, want %v", c.e, c.v, got, c.want)
		}
	}
	bad := Entry{Kind: Gate, Name: "G", OutOfScope: "x.", Since: "1.38", Until: "1.37"}
	if err := bad.Validate(); err == nil {
		t.Error("Since after Until was accepted")
	}
	bad = Entry{Kind: Gate, Name: "G", OutOfScope: "x.", Since: "v1.38"}
	if err := bad.Validate(); err == nil {
		t.Error("Since v1.38 was accepted")
	}
	if Minor("v1.38.0-beta.0") != "1.38" || !IsPreRelease("v1.38.0-beta.0") || IsPreRelease("v1.37.2") || Minor("1.38") != "" {
		t.Error("Minor or IsPreRelease")
	}
}

// TestCheckFollowsVersions: an entry until 1.38 is stale nowhere after
// 1.37 (it is not for 1.38), one since 1.38 decides nothing before.
func TestCheckFollowsVersions(t *testing.T) {
	table := append(append([]Entry(nil), syntheticTable...),
		Entry{Kind: Gate, Name: "GoneIn138", OutOfScope: "Gone.", Until: "1.38"},
		Entry{Kind: Gate, Name: "NewIn138", OutOfScope: "New.", Since: "1.38"})
	old := Inventory{Kubernetes: "v1.37.2", Items: append(append([]Item(nil), synthetic.Items...), Item{Kind: Gate, Name: "GoneIn138"})}
	next := Inventory{Kubernetes: "v1.38.0-beta.0", Items: append(append([]Item(nil), synthetic.Items...), Item{Kind: Gate, Name: "NewIn138"})}
	for _, inv := range []Inventory{old, next} {
		if err := Check(inv, table); err != nil {
			t.Errorf("%s: %v", inv.Kubernetes, err)
		}
	}
	old.Items = append(old.Items, Item{Kind: Gate, Name: "NewIn138"})
	if err := Check(old, table); err == nil || !strings.Contains(err.Error(), "unknown: Kubernetes v1.37.2 has feature gate NewIn138") {
		t.Errorf("an entry since 1.38 decided a 1.37 item: %v", err)
	}
}

func TestDiff(t *testing.T) {
	plugin := func(name string, place int, state string) Item {
		return Item{Kind: APIServerPlugin, Name: name, Place: place, State: state, Why: "x"}
	}
	a := Inventory{Kubernetes: "v1.37.2", Items: []Item{
		{Kind: Gate, Name: "Stays", State: "beta, on"},
		{Kind: Gate, Name: "Goes", State: "GA, on, locked"},
		{Kind: Gate, Name: "Graduates", State: "alpha, off"},
		plugin("A", 1, "on by default"), plugin("B", 2, "on by default"), plugin("C", 3, "on by default"), plugin("D", 4, "on by default"),
	}}
	b := Inventory{Kubernetes: "v1.38.0-beta.0", Items: []Item{
		{Kind: Gate, Name: "Stays", State: "beta, on"},
		{Kind: Gate, Name: "Graduates", State: "beta, on"},
		{Kind: Gate, Name: "Arrives", State: "alpha, off", Why: "alpha, off; name matches the rule"},
		// New sits between B and C (shifting C and D: no order change);
		// A moved after D.
		plugin("B", 1, "on by default"), plugin("New", 2, "off by default"), plugin("C", 3, "on by default"), plugin("D", 4, "off by default"), plugin("A", 5, "on by default"),
	}}
	table := []Entry{
		{Kind: Gate, Name: "Stays", OutOfScope: "x."}, {Kind: Gate, Name: "Goes", OutOfScope: "Gone.", Until: "1.38"},
		{Kind: Gate, Name: "Graduates", Clauses: []string{"a.b"}}, {Kind: Gate, Name: "Arrives", NotObservable: "n.", Since: "1.38"},
	}
	var got []string
	for _, c := range Diff(a, b, table) {
		got = append(got, fmt.Sprintf("%s %s %s [%s -> %s] %s", c.Change, c.Kind, c.Name, c.From, c.To, c.Decision))
	}
	want := []string{
		"new feature gate Arrives [ -> alpha, off; name matches the rule] not observable here",
		"new kube-apiserver admission plugin New [ -> x, after B, before C] UNKNOWN",
		"removed feature gate Goes [ -> ] out of scope",
		"stage changed feature gate Graduates [alpha, off -> beta, on] clauses",
		"stage changed kube-apiserver admission plugin D [on by default -> off by default] UNKNOWN",
		"order changed kube-apiserver admission plugin A [after (first), before B -> after D, before (last)] UNKNOWN",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Diff =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestVersionLess(t *testing.T) {
	in := []string{"v1.38.0", "v1.37.2", "v1.38.0-beta.0", "v1.38.0-alpha.3", "v1.38.0-rc.1", "v1.9.0", "v1.38.1"}
	sort.Slice(in, func(i, j int) bool { return versionLess(in[i], in[j]) })
	if got := strings.Join(in, " "); got != "v1.9.0 v1.37.2 v1.38.0-alpha.3 v1.38.0-beta.0 v1.38.0-rc.1 v1.38.0 v1.38.1" {
		t.Errorf("sorted: %s", got)
	}
}
