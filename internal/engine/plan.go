package engine

import (
	"fmt"
	"io"

	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// Plan is `run --plan`: the rights the selection needs in a cluster the
// harness did not build, each with the specs that need it, printed without
// contacting the cluster (so nothing is created).
func Plan(out io.Writer, o runconfig.Config) error {
	if o.Provider != kubeconfig.Name {
		return exitcode.Usagef("--plan lists the rights a run needs in a cluster it did not build: give --provider kubeconfig")
	}
	specs := o.MaySelect()
	if len(specs) == 0 {
		return exitcode.Usagef("no spec matched the selection (see 'run-conformance list')")
	}
	needed := access.Needed(o.PluginImage != "" && !o.InCluster, specs)
	_, optional := access.ForSpecs(specs)
	fmt.Fprintf(out, "selection: %d specs (focus and skip may narrow it further)\n", len(specs))
	switch {
	case o.InCluster && o.ServiceAccount != "":
		fmt.Fprintf(out, "--in-cluster --service-account %s: bind the rights below to that account (it gets nothing from the run; "+
			"a spec needing a right it lacks is reported not supported, a right every run needs missing fails the preflight); "+
			"you need only what the client itself does:\n", o.ServiceAccount)
		for _, a := range clusterrun.AccountClientAccess() {
			where := "cluster-wide"
			if a.Namespaced {
				where = "in the account's namespace"
			}
			fmt.Fprintf(out, "  %s (%s)\n", a, where)
		}
	case o.InCluster:
		fmt.Fprintln(out, "--in-cluster: the run's service account gets the rights below (and the optional ones you hold); "+
			"you need them all, plus what the client itself does:")
		for _, a := range clusterrun.ClientAccess() {
			fmt.Fprintf(out, "  %s (in the run's namespace or cluster-wide)\n", a)
		}
	}
	var installs []access.Installation
	if in, ok := access.ReferenceInitializersInstallation(specs); ok && o.Initializers().Install && !o.InCluster {
		installs = append(installs, in)
	}
	if err := access.WritePlan(out, needed, optional, installs...); err != nil {
		return exitcode.Usagef("%v", err)
	}
	return nil
}
