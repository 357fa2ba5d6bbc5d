package runconfig

import (
	"net"
	"os"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// In-cluster mode (--in-cluster): the client creates the run's objects in
// the cluster, streams the pod's output, copies its report dir back and
// deletes everything (internal/engine/incluster). The pod runs this same
// binary with the options file the client writes for it (child.go: the
// pod's role is its child section).

// InClusterOptions are the in-cluster client's options of `run`.
type InClusterOptions struct {
	InCluster    bool   `json:"inCluster,omitempty"`
	Image        string `json:"image,omitempty"`
	ImageArchive string `json:"imageArchive,omitempty"`
	// ServiceAccount is NAMESPACE/NAME of an existing service account the
	// run's pod runs as: no ServiceAccount, ClusterRole or binding is
	// created (internal/clusterrun.WithServiceAccount).
	ServiceAccount string `json:"serviceAccount,omitempty"`
}

// validateInCluster checks the in-cluster client's options.
func (o *Config) validateInCluster() error {
	ic := o.InClusterOptions
	if !ic.InCluster {
		if ic.Image != "" || ic.ImageArchive != "" || ic.ServiceAccount != "" {
			return exitcode.Usagef("--image, --image-archive and --service-account go with --in-cluster")
		}
		return nil
	}
	if ic.ServiceAccount != "" {
		if _, err := clusterrun.ParseAccount(ic.ServiceAccount); err != nil {
			return exitcode.Usagef("--service-account %v", err)
		}
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

// validatePod checks the pod's role the in-cluster client writes.
func (o *Config) validatePod() error {
	p := o.Pod()
	if o.InCluster || o.Provider != kubeconfig.Name {
		return exitcode.Usagef("%s.pod is the in-cluster pod's own: it goes with provider kubeconfig, without inCluster", ChildSection)
	}
	if err := clusterrun.CheckRunID(p.RunID); err != nil {
		return exitcode.Usagef("%s.pod.runID: %v", ChildSection, err)
	}
	if p.WebhookListen == "" || p.WebhookAdvertise == "" {
		return exitcode.Usagef("%s.pod: webhookListen and webhookAdvertise go together (where the pod's fake webhooks listen, and where the apiservers call them)", ChildSection)
	}
	if o.WebhookHost != "" || o.PluginImage != "" {
		return exitcode.Usagef("%s.pod serves the fake webhooks itself: not with webhookHost or pluginImage", ChildSection)
	}
	if _, _, err := net.SplitHostPort(p.WebhookListen); err != nil {
		return exitcode.Usagef("%s.pod.webhookListen %q is not HOST:PORT", ChildSection, p.WebhookListen)
	}
	host, port, err := net.SplitHostPort(p.WebhookAdvertise)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 || net.ParseIP(host) == nil {
		return exitcode.Usagef("%s.pod.webhookAdvertise %q is not IP:PORT", ChildSection, p.WebhookAdvertise)
	}
	for _, n := range p.WebhookNames {
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
			return exitcode.Usagef("%s.pod.webhookNames: %q is not a DNS name", ChildSection, n)
		}
	}
	if errs := validation.IsDNS1123Label(p.PublishResults); len(errs) > 0 {
		return exitcode.Usagef("%s.pod.publishResults %q must be a namespace name", ChildSection, p.PublishResults)
	}
	return nil
}

// ServedWebhooks are the pod's provider's options: the kubeconfig provider
// with the pod's in-cluster credentials (default loading rules, no
// kubeconfig file) and its webhooks served behind its Service.
func (o *Config) ServedWebhooks() []kubeconfig.Option {
	p := o.Pod()
	if p == nil {
		return nil
	}
	return []kubeconfig.Option{kubeconfig.WithServedWebhooks(p.WebhookListen, p.WebhookAdvertise, p.WebhookNames...)}
}
