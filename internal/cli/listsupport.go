package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// providerSupport is each provider's feature support table.
func providerSupport() map[string]features.SupportTable {
	return map[string]features.SupportTable{embedded.Name: embedded.Support(), kind.Name: kind.Support(), kubeconfig.Name: kubeconfig.Support()}
}

// supportRow is one feature of `list --features --provider P -o json`.
type supportRow struct {
	Feature  features.Name `json:"feature"`
	Declared string        `json:"declared"` // always, when, never, claimed
	Why      string        `json:"why,omitempty"`
}

// writeSupport prints table in feature order.
func writeSupport(w io.Writer, output, provider string, table features.SupportTable) error {
	var rows []supportRow
	for _, f := range features.All() {
		how, why := table[f.Name].Declared()
		r := supportRow{Feature: f.Name, Declared: how, Why: why}
		rows = append(rows, r)
	}
	if output == "json" {
		return json.NewEncoder(w).Encode(rows)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "FEATURE\tDECLARED ON %s\n", provider)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r.Feature, table[r.Feature])
	}
	return tw.Flush()
}
