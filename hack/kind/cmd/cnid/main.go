// Command cnid stands in for kindnetd, kind's network daemon, whose image
// no offline host can pull. Run on every node (host network, privileged), it
// writes the node's CNI configuration (ptp + host-local over the podCIDR the
// controller manager gave the node, masquerade for traffic leaving it) and
// keeps a route to every other node's podCIDR through that node's address.
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"os/exec"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
)

const confFile = "/etc/cni/net.d/10-kindnet.conflist"

func main() {
	node := os.Getenv("NODE_NAME")
	if node == "" {
		log.Fatal("NODE_NAME is not set")
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	routes := map[string]string{}
	written := ""
	for ; ; time.Sleep(5 * time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		cancel()
		if err != nil {
			log.Printf("list nodes: %v", err)
			continue
		}
		for _, n := range nodes.Items {
			cidr := n.Spec.PodCIDR
			if cidr == "" {
				continue
			}
			if n.Name == node {
				if cidr != written {
					if err := writeConfig(cidr); err != nil {
						log.Printf("write %s: %v", confFile, err)
						continue
					}
					written = cidr
					log.Printf("wrote %s for podCIDR %s", confFile, cidr)
				}
				continue
			}
			ip := internalIP(n)
			if ip == "" || routes[cidr] == ip {
				continue
			}
			if out, err := exec.Command("ip", "route", "replace", cidr, "via", ip).CombinedOutput(); err != nil {
				log.Printf("ip route replace %s via %s: %v: %s", cidr, ip, err, strings.TrimSpace(string(out)))
				continue
			}
			routes[cidr] = ip
			log.Printf("route %s via %s (%s)", cidr, ip, n.Name)
		}
	}
}

func internalIP(n corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && !strings.Contains(a.Address, ":") {
			return a.Address
		}
	}
	return ""
}

func writeConfig(podCIDR string) error {
	conf := map[string]any{
		"cniVersion": "0.4.0",
		"name":       "kindnet",
		"plugins": []any{
			map[string]any{
				"type":   "ptp",
				"ipMasq": true,
				"mtu":    1500,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": "/run/cni-ipam-state",
					"routes":  []any{map[string]any{"dst": "0.0.0.0/0"}},
					"ranges":  []any{[]any{map[string]any{"subnet": podCIDR}}},
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(confFile, data, 0o644)
}
