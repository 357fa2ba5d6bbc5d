package runconfig

import (
	"net"
	"os"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/incluster"
	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

// In-cluster mode (--in-cluster): the client creates the run's objects in
// the cluster, streams the pod's output, copies its report dir back and
// deletes everything (internal/engine/incluster). The pod runs this same
// binary with the hidden flags below.

// InClusterOptions are the in-cluster flags of `run`.
type InClusterOptions struct {
	// The client's.
	InCluster    bool   `json:"inCluster,omitempty"`
	Image        string `json:"image,omitempty"`
	ImageArchive string `json:"imageArchive,omitempty"`

	// The pod's (hidden flags; the client writes them).
	RunID            string   `json:"-"`
	WebhookListen    string   `json:"-"`
	WebhookAdvertise string   `json:"-"`
	WebhookNames     []string `json:"-"`
	PublishResults   string   `json:"-"`
}

// validateInCluster checks the in-cluster flags, the client's and the
// pod's.
func (o *Config) validateInCluster() error {
	ic := o.InClusterOptions
	if ic.RunID != "" || ic.WebhookListen != "" || ic.WebhookAdvertise != "" || len(ic.WebhookNames) > 0 || ic.PublishResults != "" {
		if err := o.ValidatePodFlags(); err != nil {
			return err
		}
	}
	if !ic.InCluster {
		if ic.Image != "" || ic.ImageArchive != "" {
			return exitcode.Usagef("--image and --image-archive go with --in-cluster")
		}
		return nil
	}
	switch o.Provider {
	case kubeconfig.Name:
		if ic.Image == "" {
			return exitcode.Usagef("--in-cluster needs --image: the harness image the cluster pulls (write it with 'run-conformance image -o harness.tar --ref REGISTRY/NAME:TAG' and push it there)")
		}
		if ic.ImageArchive != "" {
			return exitcode.Usagef("--image-archive goes with --provider kind (it is loaded into kind's nodes); push the image where the cluster pulls from instead")
		}
		if err := check.ImageRef("--image", ic.Image, false); err != nil {
			return err
		}
	case kind.Name:
		if ic.Image != "" {
			if err := check.ImageRef("--image", ic.Image, true); err != nil {
				return err
			}
		}
		if ic.ImageArchive != "" {
			info, err := os.Stat(ic.ImageArchive)
			if err != nil || !info.Mode().IsRegular() {
				return exitcode.Usagef("--image-archive %s is not a readable file (write one with 'run-conformance image -o FILE')", ic.ImageArchive)
			}
		}
	default:
		return exitcode.Usagef("--in-cluster goes with --provider kubeconfig or kind (the embedded cluster runs in this process)")
	}
	if o.WebhookHost != "" || o.PluginImage != "" {
		return exitcode.Usagef("--in-cluster serves the fake webhooks from its own pod: drop --webhook-host and --plugin-image")
	}
	return nil
}

// ValidatePodFlags checks the hidden flags the in-cluster client writes
// for its pod.
func (o *Config) ValidatePodFlags() error {
	ic := o.InClusterOptions
	if ic.InCluster || o.Provider != kubeconfig.Name {
		return exitcode.Usagef("--%s, --%s, --%s, --%s and --%s are the in-cluster pod's own: they go with --provider kubeconfig, without --in-cluster",
			incluster.FlagRunID, incluster.FlagWebhookListen, incluster.FlagWebhookAdvertise, incluster.FlagWebhookName, incluster.FlagPublishResults)
	}
	if ic.RunID != "" {
		if err := incluster.CheckRunID(ic.RunID); err != nil {
			return exitcode.Usagef("--%s: %v", incluster.FlagRunID, err)
		}
	}
	if (ic.WebhookListen == "") != (ic.WebhookAdvertise == "") || (len(ic.WebhookNames) > 0 && ic.WebhookListen == "") {
		return exitcode.Usagef("--%s and --%s go together (and --%s with them)", incluster.FlagWebhookListen, incluster.FlagWebhookAdvertise, incluster.FlagWebhookName)
	}
	if ic.WebhookListen != "" {
		if o.WebhookHost != "" || o.PluginImage != "" {
			return exitcode.Usagef("--%s is a third way to reach the fake webhooks: not with --webhook-host or --plugin-image", incluster.FlagWebhookListen)
		}
		if _, _, err := net.SplitHostPort(ic.WebhookListen); err != nil {
			return exitcode.Usagef("--%s %q is not HOST:PORT", incluster.FlagWebhookListen, ic.WebhookListen)
		}
		host, port, err := net.SplitHostPort(ic.WebhookAdvertise)
		if p, perr := strconv.Atoi(port); err != nil || perr != nil || p < 1 || p > 65535 || net.ParseIP(host) == nil {
			return exitcode.Usagef("--%s %q is not IP:PORT", incluster.FlagWebhookAdvertise, ic.WebhookAdvertise)
		}
	}
	for _, n := range ic.WebhookNames {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return exitcode.Usagef("--%s %q is not a DNS name", incluster.FlagWebhookName, n)
		}
	}
	if ic.PublishResults != "" {
		if errs := validation.IsDNS1123Label(ic.PublishResults); len(errs) > 0 || ic.RunID == "" {
			return exitcode.Usagef("--%s %q must be a namespace name, with --%s", incluster.FlagPublishResults, ic.PublishResults, incluster.FlagRunID)
		}
	}
	return nil
}

// ServedWebhooks are the pod's provider's options: the kubeconfig provider
// with the pod's in-cluster credentials (default loading rules, no
// kubeconfig file) and its webhooks served behind its Service.
func (o *Config) ServedWebhooks() []kubeconfig.Option {
	if o.WebhookListen == "" {
		return nil
	}
	return []kubeconfig.Option{kubeconfig.WithServedWebhooks(o.WebhookListen, o.WebhookAdvertise, o.WebhookNames...)}
}
