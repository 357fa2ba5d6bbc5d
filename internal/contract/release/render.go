package release

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/admission-conformance/admission-conformance/internal/contract"
)

// Unknown is what the table prints for an item it does not decide.
const Unknown Disposition = "UNKNOWN"

// Row is one inventoried item with the table's decision.
type Row struct {
	Kind Kind
	Name string
	// Why says where the item comes from (Item.Why).
	Why         string
	Disposition Disposition
	Clauses     []string `json:",omitempty"`
	// Reason is the out-of-scope or not-observable sentence.
	Reason string `json:",omitempty"`
}

// Rule is the written rule selecting the admission-related gates.
type Rule struct {
	GateName         string
	AdmissionCode    []string
	AdmitHandlerCode string
	ReviewedGates    map[string]string
}

// Report is the release table as `list --contract` prints it.
type Report struct {
	Kubernetes string
	Rule       Rule
	Rows       []Row
	// Stale are entries for items the pinned Kubernetes does not have.
	Stale   []Entry `json:",omitempty"`
	Summary string
	// PreRelease: Kubernetes is a pre-release (v1.38.0-beta.0).
	PreRelease bool `json:",omitempty"`
	// ChangesFrom is the version Changes are against (the pinned one), for
	// the table of another version; Changes what changed from it (Diff).
	ChangesFrom string   `json:",omitempty"`
	Changes     []Change `json:",omitempty"`
}

// ReportFor is the release table of Kubernetes version v: the pinned one
// (linked), or a stored one with what changed from the pinned one.
func ReportFor(v string) (Report, error) {
	if v == "" || v == pinned.Kubernetes {
		return PinnedReport()
	}
	inv, err := InventoryOf(v)
	if err != nil {
		return Report{}, err
	}
	base, err := Pinned()
	if err != nil {
		return Report{}, err
	}
	r := Build(inv, Table)
	r.ChangesFrom, r.Changes = base.Kubernetes, Diff(base, inv, Table)
	return r, nil
}

// NewerReports are the release tables of the stored versions newer than
// the pinned one, oldest first, each with its changes from the pinned one.
func NewerReports() ([]Report, error) {
	versions, err := StoredVersions()
	if err != nil {
		return nil, err
	}
	var out []Report
	for _, v := range versions {
		if !versionLess(pinned.Kubernetes, v) {
			continue
		}
		r, err := ReportFor(v)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Build joins inv and table into the report.
func Build(inv Inventory, table []Entry) Report {
	table = At(table, inv.Kubernetes)
	decided := map[string]Entry{}
	for _, e := range table {
		decided[key(e.Kind, e.Name)] = e
	}
	r := Report{Kubernetes: inv.Kubernetes, PreRelease: IsPreRelease(inv.Kubernetes), Rule: Rule{
		GateName: GateNameRule.String(), AdmissionCode: AdmissionCode, AdmitHandlerCode: AdmitHandlerCode, ReviewedGates: ReviewedGatesAt(inv.Kubernetes),
	}}
	have := map[string]bool{}
	for _, it := range inv.Items {
		have[key(it.Kind, it.Name)] = true
		row := Row{Kind: it.Kind, Name: it.Name, Why: it.Why, Disposition: Unknown}
		if e, ok := decided[key(it.Kind, it.Name)]; ok {
			row.Disposition, row.Clauses = e.Disposition(), e.Clauses
			row.Reason = e.OutOfScope + e.NotObservable
		}
		r.Rows = append(r.Rows, row)
	}
	for _, e := range table {
		if !have[key(e.Kind, e.Name)] {
			r.Stale = append(r.Stale, e)
		}
	}
	r.Summary = r.summaryLine()
	return r
}

// summaryLine: "N gates, M apiserver plugins, K kubelet handlers: X mapped
// to clauses, Y out of scope, Z not observable here, U unknown".
func (r Report) summaryLine() string {
	kinds := map[Kind]int{}
	disp := map[Disposition]int{}
	for _, row := range r.Rows {
		kinds[row.Kind]++
		disp[row.Disposition]++
	}
	s := fmt.Sprintf("%d gates, %d apiserver plugins, %d kubelet handlers: %d mapped to clauses, %d out of scope, %d not observable here, %d unknown",
		kinds[Gate], kinds[APIServerPlugin], kinds[KubeletHandlerKind], disp[Mapped], disp[OutOfScope], disp[NotObservable], disp[Unknown])
	if len(r.Stale) > 0 {
		s += fmt.Sprintf(", %d stale", len(r.Stale))
	}
	return s
}

func (r Report) byKind() map[Kind][]Row {
	out := map[Kind][]Row{}
	for _, row := range r.Rows {
		out[row.Kind] = append(out[row.Kind], row)
	}
	return out
}

func (r Report) intro(k Kind) string {
	switch k {
	case Gate:
		names := make([]string, 0, len(r.Rule.ReviewedGates))
		for g := range r.Rule.ReviewedGates {
			names = append(names, g)
		}
		sort.Strings(names)
		return fmt.Sprintf("selected from every registered gate by the rule: the name matches /%s/, or admission code reads it (%s; and files under %s declaring Admit(*PodAdmitAttributes)); plus the reviewed gates %s",
			r.Rule.GateName, strings.Join(r.Rule.AdmissionCode, ", "), r.Rule.AdmitHandlerCode, strings.Join(names, ", "))
	case APIServerPlugin:
		return "kube-apiserver's registry and AllOrderedPlugins (k8s.io/kubernetes/pkg/kubeapiserver/options), both"
	}
	return "derived from NewMainKubelet (k8s.io/kubernetes/" + KubeletChainFile + "), in chain order"
}

// WriteText prints the report after the clause inventory: per kind each
// item, where it comes from and its decision; then the stale entries; then
// the summary line.
func (r Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Release guard: Kubernetes %s%s (internal/contract/release)\n", r.Kubernetes, r.preReleaseNote())
	groups := r.byKind()
	for _, k := range Kinds {
		fmt.Fprintln(bw)
		fmt.Fprintf(bw, "%ss (%d): %s\n", capitalize(string(k)), len(groups[k]), r.intro(k))
		for _, row := range groups[k] {
			fmt.Fprintf(bw, "  %s\n", row.Name)
			fmt.Fprintf(bw, "    from:     %s\n", row.Why)
			switch row.Disposition {
			case Mapped:
				fmt.Fprintf(bw, "    clauses:  %s\n", strings.Join(row.Clauses, ", "))
			case Unknown:
				fmt.Fprintf(bw, "    %s: the release table does not decide it\n", Unknown)
			default:
				fmt.Fprintf(bw, "    %s: %s\n", row.Disposition, row.Reason)
			}
		}
	}
	for _, e := range r.Stale {
		fmt.Fprintf(bw, "  STALE: the table decides %s %s, which Kubernetes %s does not have\n", e.Kind, e.Name, r.Kubernetes)
	}
	if r.ChangesFrom != "" {
		fmt.Fprintln(bw)
		r.writeChangesText(bw)
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, r.Summary)
	return bw.Flush()
}

func (r Report) preReleaseNote() string {
	if r.PreRelease {
		return " (pre-release)"
	}
	return ""
}

func (c Change) decisionText() string {
	switch c.Decision {
	case Mapped:
		return "clauses " + strings.Join(c.Clauses, ", ")
	case Unknown:
		return string(Unknown) + ": the release table does not decide it"
	}
	return string(c.Decision) + ": " + c.Reason
}

func (c Change) whatText() string {
	switch {
	case c.From != "" && c.To != "":
		return c.From + " -> " + c.To
	case c.To != "":
		return c.To
	}
	return c.From
}

// changesSummary: "N changes from V: a new, b removed, c stage changed, d
// order changed".
func (r Report) changesSummary() string {
	n := map[ChangeKind]int{}
	for _, c := range r.Changes {
		n[c.Change]++
	}
	parts := make([]string, len(ChangeKinds))
	for i, k := range ChangeKinds {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	return fmt.Sprintf("%d changes from Kubernetes %s: %s", len(r.Changes), r.ChangesFrom, strings.Join(parts, ", "))
}

func (r Report) writeChangesText(bw *bufio.Writer) {
	fmt.Fprintf(bw, "Changes from Kubernetes %s (%d):\n", r.ChangesFrom, len(r.Changes))
	for _, c := range r.Changes {
		fmt.Fprintf(bw, "  %-13s  %s %s\n", c.Change, c.Kind, c.Name)
		fmt.Fprintf(bw, "    %s\n", c.whatText())
		fmt.Fprintf(bw, "    %s\n", c.decisionText())
	}
	fmt.Fprintln(bw, r.changesSummary())
}

// WriteChangesMarkdown renders a newer version's release table as its
// changes from the pinned one (docs/contract.md's last sections).
func (r Report) WriteChangesMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "## Release guard: Kubernetes %s%s, changes from %s\n\n", r.Kubernetes, r.preReleaseNote(), r.ChangesFrom)
	fmt.Fprintf(bw, "The inventory of Kubernetes %s, derived where it is linked (`internal/contract/release/inventories/%s`),\n", r.Kubernetes, InventoryFile(r.Kubernetes))
	fmt.Fprintf(bw, "against the same table: %s. `run-conformance list --contract --kubernetes %s` prints all of it.\n\n", r.Summary, r.Kubernetes)
	fmt.Fprintf(bw, "%s.\n\n", r.changesSummary())
	fmt.Fprintln(bw, "| Change | Kind | Name | What | Decision |")
	fmt.Fprintln(bw, "| --- | --- | --- | --- | --- |")
	for _, c := range r.Changes {
		var decision string
		switch c.Decision {
		case Mapped:
			ids := make([]string, len(c.Clauses))
			for i, id := range c.Clauses {
				ids[i] = "`" + id + "`"
			}
			decision = strings.Join(ids, ", ")
		case Unknown:
			decision = "**" + string(Unknown) + "**"
		default:
			decision = "*" + string(c.Decision) + ":* " + mdEscape(c.Reason)
		}
		fmt.Fprintf(bw, "| %s | %s | `%s` | %s | %s |\n", c.Change, c.Kind, c.Name, mdEscape(c.whatText()), decision)
	}
	return bw.Flush()
}

// WriteMarkdown renders the report as the last section of docs/contract.md.
func (r Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "## Release guard: Kubernetes %s%s\n\n", r.Kubernetes, r.preReleaseNote())
	fmt.Fprintln(bw, "Every admission-related feature gate, kube-apiserver admission plugin and kubelet pod admit handler of the")
	fmt.Fprintln(bw, "pinned Kubernetes, read from Kubernetes itself (`internal/contract/release`), with the clauses covering it")
	fmt.Fprintln(bw, "or why none does: *out of scope* (the admission contract does not need it) or *not observable here* (the")
	fmt.Fprintln(bw, "contract would care, but the harness cannot see it where it runs). A unit test fails when the pinned version")
	fmt.Fprintln(bw, "has an item the table does not decide, or the table decides one it no longer has.")
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "%s.\n", r.Summary)
	groups := r.byKind()
	for _, k := range Kinds {
		fmt.Fprintln(bw)
		fmt.Fprintf(bw, "### %ss\n\n", capitalize(string(k)))
		fmt.Fprintf(bw, "%d, %s.\n\n", len(groups[k]), mdEscape(r.intro(k)))
		fmt.Fprintln(bw, "| Name | From | Decision |")
		fmt.Fprintln(bw, "| --- | --- | --- |")
		for _, row := range groups[k] {
			var decision string
			switch row.Disposition {
			case Mapped:
				ids := make([]string, len(row.Clauses))
				for i, id := range row.Clauses {
					ids[i] = "`" + id + "`"
				}
				decision = strings.Join(ids, ", ")
			case Unknown:
				decision = "**" + string(Unknown) + "**"
			default:
				decision = "*" + string(row.Disposition) + ":* " + mdEscape(row.Reason)
			}
			fmt.Fprintf(bw, "| `%s` | %s | %s |\n", row.Name, mdEscape(row.Why), decision)
		}
	}
	for _, e := range r.Stale {
		fmt.Fprintf(bw, "\n**STALE:** the table decides %s `%s`, which Kubernetes %s does not have.\n", e.Kind, e.Name, r.Kubernetes)
	}
	return bw.Flush()
}

// WriteContractText prints what `list --contract` prints: the clause
// inventory, then the release table.
func WriteContractText(w io.Writer, clauses []contract.Clause, r Report) error {
	if err := contract.WriteText(w, clauses); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return r.WriteText(w)
}

// WriteContractMarkdown renders docs/contract.md: the clause inventory,
// then the release table.
func WriteContractMarkdown(w io.Writer, clauses []contract.Clause, r Report, newer ...Report) error {
	if err := contract.WriteMarkdown(w, clauses); err != nil {
		return err
	}
	if err := r.WriteMarkdown(w); err != nil {
		return err
	}
	for _, n := range newer {
		if err := n.WriteChangesMarkdown(w); err != nil {
			return err
		}
	}
	return nil
}

// ContractJSON is what `list --contract -o json` prints.
type ContractJSON struct {
	Clauses []contract.Clause
	Release Report
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// mdEscaper makes text safe in a Markdown table cell (as internal/contract
// does for clauses).
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "\n", " ",
)

func mdEscape(s string) string { return mdEscaper.Replace(s) }
