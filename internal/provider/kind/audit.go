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

// auditSetting turns the audit log on in every apiserver kubeadm starts and
// mounts the log dir and the policy into the apiserver's pod.
var auditSetting = apiserverSetting{
	args: []apiserverArg{
		{"audit-policy-file", nodeAuditPolicy},
		{"audit-log-path", nodeAuditDir + "/audit.log"},
		{"audit-log-format", "json"},
	},
	volumes: []apiserverVolume{
		{name: "audit-log", path: nodeAuditDir, pathType: "DirectoryOrCreate"},
		{name: "audit-policy", path: nodeAuditPolicy, pathType: "File", readOnly: true},
	},
}

// withAudit mounts, into the i-th control-plane node, dir/audit-policy.yaml
// and dir/audit/<i>/ (where its apiserver writes audit.log). It returns the
// host path of each replica's log, in node name order (kind names them
// <name>-control-plane, -control-plane2, ...), and the apiserver setting
// (apiserverPatches).
func withAudit(cfg *v1alpha4.Cluster, dir string) ([]string, apiserverSetting, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(audit.Policy), 0o644); err != nil {
		return nil, apiserverSetting{}, fmt.Errorf("audit policy: %w", err)
	}
	var logs []string
	for i := range cfg.Nodes {
		if cfg.Nodes[i].Role != v1alpha4.ControlPlaneRole {
			continue
		}
		host := filepath.Join(dir, "audit", fmt.Sprint(len(logs)))
		if err := os.MkdirAll(host, 0o755); err != nil {
			return nil, apiserverSetting{}, fmt.Errorf("audit log dir: %w", err)
		}
		cfg.Nodes[i].ExtraMounts = append(cfg.Nodes[i].ExtraMounts,
			v1alpha4.Mount{HostPath: host, ContainerPath: nodeAuditDir},
			v1alpha4.Mount{HostPath: policy, ContainerPath: nodeAuditPolicy, Readonly: true})
		logs = append(logs, filepath.Join(host, "audit.log"))
	}
	return logs, auditSetting, nil
}
