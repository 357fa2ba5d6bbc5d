package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/contract"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/contract/observability"
	"github.com/admission-conformance/admission-conformance/internal/contract/release"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

func newListCommand() *cobra.Command {
	var showFeatures, showContract, showCoverage, markdown bool
	var output, kubernetes, provider string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the specs (or, with --features, the features; with --contract, the contract inventory) without a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "table" && output != "json" {
				return exitcode.Usagef("--output must be table or json, got %q", output)
			}
			switch {
			case provider != "" && !showFeatures:
				return exitcode.Usagef("--provider goes with --features")
			case showFeatures && showContract:
				return exitcode.Usagef("--features and --contract list different things: give one")
			case showCoverage && !showContract:
				return exitcode.Usagef("--coverage goes with --contract")
			case showCoverage && markdown:
				return exitcode.Usagef("--coverage prints a table or json, not markdown")
			case markdown && !showContract:
				return exitcode.Usagef("--markdown goes with --contract")
			case markdown && output == "json":
				return exitcode.Usagef("--markdown and --output json exclude each other")
			case kubernetes != "" && (!showContract || showCoverage):
				return exitcode.Usagef("--kubernetes goes with --contract")
			case kubernetes != "" && markdown:
				return exitcode.Usagef("--kubernetes prints a table or json; docs/contract.md (--markdown) has every kept version")
			case kubernetes != "" && release.Minor(kubernetes) == "":
				return exitcode.Usagef("--kubernetes must be a version like v1.37.2 or v1.38.0-beta.0, got %q", kubernetes)
			}
			w := cmd.OutOrStdout()
			if showCoverage {
				// The observability surface (internal/contract/observability),
				// then the field inventory of the admission API and its CEL
				// environment (internal/contract/fields), ending with its summary.
				if output == "json" {
					return json.NewEncoder(w).Encode(struct {
						fields.InventoryReport
						Observability observability.InventoryReport
					}{fields.Report(), observability.Report()})
				}
				if err := observability.WriteText(w); err != nil {
					return err
				}
				return fields.WriteText(w)
			}
			if showContract {
				// The clause inventory, then the release table (internal/contract/release).
				all := contract.All()
				rel, err := release.ReportFor(kubernetes)
				if err != nil {
					if kubernetes != "" {
						return exitcode.Usagef("--kubernetes: %v", err)
					}
					return err
				}
				switch {
				case output == "json":
					return json.NewEncoder(w).Encode(release.ContractJSON{Clauses: all, Release: rel})
				case markdown:
					newer, err := release.NewerReports()
					if err != nil {
						return err
					}
					return release.WriteContractMarkdown(w, all, rel, newer...)
				}
				return release.WriteContractText(w, all, rel)
			}
			if showFeatures && provider != "" {
				table, ok := providerSupport()[provider]
				if !ok {
					return exitcode.Usagef("--provider: unknown provider %q: use embedded, kind or kubeconfig", provider)
				}
				return writeSupport(w, output, provider, table)
			}
			if showFeatures {
				all := features.All()
				if output == "json" {
					return json.NewEncoder(w).Encode(all)
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "FEATURE\tCORE\tSINCE\tDESCRIPTION")
				for _, f := range all {
					since := "-"
					if f.Since != "" {
						since = f.Since
					}
					fmt.Fprintf(tw, "%s\t%t\t%s\t%s\n", f.Name, f.Core, since, f.Description)
				}
				return tw.Flush()
			}
			specs := spec.All()
			if output == "json" {
				return json.NewEncoder(w).Encode(specs)
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SUITE\tSPEC\tPROFILE\tFEATURES\tISOLATION\tSEED")
			for _, s := range specs {
				names := make([]string, len(s.Features))
				for i, f := range s.Features {
					names[i] = string(f)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Suite, s.ShortName, s.Profile, strings.Join(names, ","), s.Isolation, s.Seed)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&showFeatures, "features", false, "list the registered features instead of the specs")
	cmd.Flags().StringVar(&provider, "provider", "", "with --features: whether that provider's clusters declare each feature, when, or why not (embedded, kind, kubeconfig)")
	cmd.Long = "List the specs without a cluster: suite, name, profile, the features each needs, its ISOLATION in a parallel run " +
		"(run --parallel: '-' runs beside any spec; 'serial' runs alone; 'exclusive:S' beside no spec naming the shared state S; " +
		"'shares:S' beside specs sharing S but not beside one holding it exclusive; -o json gives the reason) and the seed clause it checks."
	cmd.Flags().BoolVar(&showContract, "contract", false, "list the contract inventory (clauses by area, the specs checking each; then the release table of the pinned Kubernetes' admission gates, plugins and kubelet handlers) instead of the specs")
	cmd.Flags().BoolVar(&showCoverage, "coverage", false, "with --contract: the field inventory of the admission API instead (every field path of the webhook configurations, policies, bindings, AdmissionRequest and AdmissionResponse, from the pinned k8s.io/api, with the clauses checking it, its gap or why it is out of scope)")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "with --contract: print docs/contract.md's Markdown")
	cmd.Flags().StringVar(&kubernetes, "kubernetes", "", "with --contract: the release table of this Kubernetes version instead of the pinned one (a kept inventory: internal/contract/release/inventories), then what changed from the pinned one")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "table or json")
	return cmd
}
