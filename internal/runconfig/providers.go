package runconfig

import (
	"net"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// validateProviderFlags rejects the kind and kubeconfig providers' own flags
// given with another provider, and a --webhook-host that is not an IP.
func (o *Config) validateProviderFlags() error {
	k := o.Kind
	if o.Provider != kind.Name && (k.Image != "" || k.Cluster != "" || k.Keep || (k.Topology != "" && k.Topology != string(kind.Single))) {
		return exitcode.Usagef("--kind-topology, --kind-image, --kind-cluster and --keep-cluster go with --provider kind")
	}
	if o.PluginImage != "" {
		if o.Provider != kubeconfig.Name {
			return exitcode.Usagef("--plugin-image goes with --provider kubeconfig")
		}
		if o.WebhookHost != "" {
			return exitcode.Usagef("--plugin-image and --webhook-host are two ways to reach the fake webhooks: give one")
		}
		if err := check.ImageRef("--plugin-image", o.PluginImage, false); err != nil {
			return err
		}
	}
	if len(o.NodeAdmissionNodes) > 0 && o.Provider != kubeconfig.Name {
		return exitcode.Usagef("--node-admission-nodes goes with --provider kubeconfig (provider kind and embedded know their nodes)")
	}
	for _, n := range o.NodeAdmissionNodes {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return exitcode.Usagef("--node-admission-nodes %q is not a node name: %s", n, errs[0])
		}
	}
	if o.WebhookHost != "" {
		if o.Provider != kubeconfig.Name {
			return exitcode.Usagef("--webhook-host goes with --provider kubeconfig (provider kind finds the address itself)")
		}
		if net.ParseIP(o.WebhookHost) == nil {
			return exitcode.Usagef("--webhook-host must be an IP address of this host, got %q", o.WebhookHost)
		}
	}
	return nil
}
