package access

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Installation is something the harness installs in the cluster where the
// user may (the reference initializers): what it is, the specs that need
// it, and the rights installing it takes beyond a run's own.
type Installation struct {
	What   string
	Specs  []string
	Access []Access
}

// WritePlan prints every right of needed with the specs that need it, then
// the optional ones with their specs and why (identities to impersonate,
// then installations), then a ClusterRole holding exactly needed (the
// optional rights in a second one), which a user can bind to whoever runs
// the harness.
func WritePlan(w io.Writer, needed []Access, optional []Optional, installs ...Installation) error {
	fmt.Fprintf(w, "rights a run of this selection needs (%d); namespaced ones are needed in the spec namespaces, whose names are generated, so granted cluster-wide:\n", len(needed))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  RIGHT\tSCOPE\tNEEDED BY")
	for _, a := range needed {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", a, scope(a), a.NeededBy())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(optional)+len(installs) == 0 {
		fmt.Fprintln(w, "optional rights: none (no selected spec impersonates an identity outside the harness's own or needs what the harness installs)")
	} else {
		fmt.Fprintln(w, "optional rights: asked for, never required; without one the cases that need it are reported not supported:")
	}
	var extra []Access
	for _, o := range optional {
		fmt.Fprintf(w, "  impersonate %s, for %s: %s\n", o.Identity, strings.Join(o.Specs, ", "), o.Identity.Why)
		for _, a := range o.Access {
			fmt.Fprintf(w, "    %s\n", a)
		}
		extra = append(extra, o.Access...)
	}
	for _, in := range installs {
		fmt.Fprintf(w, "  install %s, for %s (without these rights the run does not install it):\n", in.What, strings.Join(in.Specs, ", "))
		for _, a := range in.Access {
			fmt.Fprintf(w, "    %s\n", a)
			extra = Merge(extra, a)
		}
	}
	fmt.Fprintln(w, "\nthe same as ClusterRoles (bind the first to the user or service account that runs the harness; the second only to grant the optional rights):")
	for i, role := range []struct {
		name string
		list []Access
	}{{"admission-conformance", needed}, {"admission-conformance-optional", extra}} {
		if len(role.list) == 0 {
			continue
		}
		b, err := yaml.Marshal(ClusterRole(role.name, role.list))
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		fmt.Fprint(w, string(b))
	}
	return nil
}

// ClusterRole holds exactly list's rights.
func ClusterRole(name string, list []Access) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: Rules(list)}
}

func scope(a Access) string {
	if a.Namespaced {
		return "spec namespaces"
	}
	return "cluster"
}
