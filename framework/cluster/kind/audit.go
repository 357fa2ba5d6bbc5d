package kind

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/admission-conformance/admission-conformance/framework/audit"
)

// Where each control-plane node keeps its apiserver's audit log and policy;
// the host directories behind them are the provider's work dir.
const (
	nodeAuditDir    = "/var/log/kubernetes/audit"
	nodeAuditPolicy = "/etc/kubernetes/audit-policy.yaml"
)

// auditPatches turn the audit log on in every apiserver kubeadm starts
// (and aggregator routing, loadBalancing: kind merges patches, and a second
// one would replace the extraArgs list rather than add to it),
// one per kubeadm config API kind writes: v1beta4 (Kubernetes 1.36 on),
// whose extraArgs are a list, and v1beta3 (before 1.36), where they are a
// map. kind applies a patch naming an apiVersion only to that version, so
// the node image's Kubernetes picks its own.
var auditPatches = []string{`apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
apiServer:
  extraArgs:
  - name: enable-aggregator-routing
    value: "true"
  - name: audit-policy-file
    value: ` + nodeAuditPolicy + `
  - name: audit-log-path
    value: ` + nodeAuditDir + `/audit.log
  - name: audit-log-format
    value: json
` + auditVolumes, `apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
apiServer:
  extraArgs:
    enable-aggregator-routing: "true"
    audit-policy-file: ` + nodeAuditPolicy + `
    audit-log-path: ` + nodeAuditDir + `/audit.log
    audit-log-format: json
` + auditVolumes}

// auditVolumes mount the log dir and the policy into the apiserver's pod
// (the same in both kubeadm config versions).
const auditVolumes = `  extraVolumes:
  - name: audit-log
    hostPath: ` + nodeAuditDir + `
    mountPath: ` + nodeAuditDir + `
    pathType: DirectoryOrCreate
  - name: audit-policy
    hostPath: ` + nodeAuditPolicy + `
    mountPath: ` + nodeAuditPolicy + `
    readOnly: true
    pathType: File
`

// withAudit mounts, into the i-th control-plane node, dir/audit-policy.yaml
// and dir/audit/<i>/ (where its apiserver writes audit.log), and adds the
// kubeadm patch. It returns the host path of each replica's log, in node
// name order (kind names them <name>-control-plane, -control-plane2, ...).
func withAudit(cfg *v1alpha4.Cluster, dir string) ([]string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(audit.Policy), 0o644); err != nil {
		return nil, fmt.Errorf("audit policy: %w", err)
	}
	var logs []string
	for i := range cfg.Nodes {
		if cfg.Nodes[i].Role != v1alpha4.ControlPlaneRole {
			continue
		}
		host := filepath.Join(dir, "audit", fmt.Sprint(len(logs)))
		if err := os.MkdirAll(host, 0o755); err != nil {
			return nil, fmt.Errorf("audit log dir: %w", err)
		}
		cfg.Nodes[i].ExtraMounts = append(cfg.Nodes[i].ExtraMounts,
			v1alpha4.Mount{HostPath: host, ContainerPath: nodeAuditDir},
			v1alpha4.Mount{HostPath: policy, ContainerPath: nodeAuditPolicy, Readonly: true})
		logs = append(logs, filepath.Join(host, "audit.log"))
	}
	cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches, auditPatches...)
	return logs, nil
}
