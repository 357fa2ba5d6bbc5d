package kind

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/client-go/discovery"
	"sigs.k8s.io/kind/pkg/exec"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

// apiserverManifest is kubeadm's static pod of the apiserver on each
// control-plane node.
const apiserverManifest = "/etc/kubernetes/manifests/kube-apiserver.yaml"

// aggregatorRouting is the apiserver flag that has it resolve a Service to
// one of its endpoints itself rather than to its ClusterIP: only then does
// WebhookRoundTripLoadBalancing pick an endpoint per request (through the
// ClusterIP the proxy picks once per connection). The provider sets it on
// the clusters it creates (auditPatches).
const aggregatorRouting = "--enable-aggregator-routing=true"

// loadBalancing finds whether every apiserver balances Service webhooks per
// request: the release has the gate (1.37 on), its manifest carries
// aggregatorRouting and does not turn the gate off. Otherwise
// notBalanced says why.
func (c *kindCluster) loadBalancing(ctx context.Context) error {
	d, err := discovery.NewDiscoveryClientForConfig(c.config)
	if err != nil {
		return err
	}
	v, err := d.ServerVersion()
	if err != nil {
		return fmt.Errorf("kind cluster %s: server version: %w", c.name, err)
	}
	major, minor, err := cluster.ParseMinor(v.Major, v.Minor)
	if err != nil {
		return err
	}
	f, _ := features.Lookup(string(features.WebhookRoundTripLoadBalancing))
	if !features.AtLeast(major, minor, f.Since) {
		c.notBalanced = fmt.Sprintf("Kubernetes %s has no gate WebhookRoundTripLoadBalancing (%s on)", v.GitVersion, f.Since)
		return nil
	}
	for _, node := range c.controlPlanes {
		out, err := exec.Output(exec.CommandContext(ctx, "docker", "exec", node, "cat", apiserverManifest))
		if err != nil {
			return fmt.Errorf("apiserver manifest of kind node %s: %w", node, errors.Join(err, runErrorOutput(err)))
		}
		switch manifest := string(out); {
		case !strings.Contains(manifest, aggregatorRouting):
			c.notBalanced = "the apiserver of " + node + " resolves Services to their ClusterIP (no " + aggregatorRouting +
				": clusters the provider creates have it), through which the proxy picks an endpoint per connection"
			return nil
		case strings.Contains(manifest, "WebhookRoundTripLoadBalancing=false"):
			c.notBalanced = "the apiserver of " + node + " has gate WebhookRoundTripLoadBalancing off"
			return nil
		}
	}
	c.balanced = true
	return nil
}
