package parallel

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

// AttachVersion identifies the attach file's format. Parent and workers are
// the same binary, so a mismatch means a stale file.
const AttachVersion = "admission-conformance.io/attach/v1"

// Attach is what a worker needs to run specs against the cluster the parent
// booted: how to reach it, what it is, and what the run decided (its ID,
// features, bounds). The parent writes it once the cluster is ready (and
// again, as another file, once its nodes are); it holds credentials, so it
// is written 0600 into the run's private work dir.
type Attach struct {
	APIVersion        string `json:"apiVersion"`
	RunID             string `json:"runID"`
	Provider          string `json:"provider"`
	Topology          string `json:"topology"`
	KubernetesVersion string `json:"kubernetesVersion"`
	// Front reaches the cluster through its front door (the load balancer
	// when there are several apiservers); Replicas each apiserver.
	Front    Endpoint   `json:"front"`
	Replicas []Endpoint `json:"replicas"`
	Nodes    []Node     `json:"nodes,omitempty"`
	// Capabilities are the cluster's own; Supported adds what the user
	// claimed and the harness installed (Installed).
	Capabilities []features.Name `json:"capabilities,omitempty"`
	Supported    []features.Name `json:"supported,omitempty"`
	Installed    []features.Name `json:"installed,omitempty"`
	Bounds       bounds.Bounds   `json:"bounds"`
	// AuditLogs is one file per replica when the cluster's audit logs can
	// be read (cluster.AuditLog), else empty.
	AuditLogs []string `json:"auditLogs,omitempty"`
	// MetricsShared: the replicas share one metrics registry
	// (cluster.SharedMetrics).
	MetricsShared bool `json:"metricsShared,omitempty"`
	// Disposable: the parent's Stop deletes the cluster whole
	// (cluster.Disposable).
	Disposable bool `json:"disposable,omitempty"`
	// WebhookHost is the address of this host the apiservers reach, where a
	// worker's fake webhook server listens (cluster.WebhookHost); empty:
	// loopback.
	WebhookHost string `json:"webhookHost,omitempty"`
	// WebhookHosts are extra names the webhook certificates carry.
	WebhookHosts []string `json:"webhookHosts,omitempty"`
	// Routing, when set, is how workers' webhook servers are reached through
	// the parent's router in front of an in-cluster relay
	// (cluster.WebhookEndpoint).
	Routing *Routing `json:"routing,omitempty"`
	// PluginHosts are the nodes' KEP-2823 plugin hosts (nodes.PluginHosts),
	// by node name: directories on this host, so workers configure them as
	// the parent would.
	PluginHosts map[string]PluginHost `json:"pluginHosts,omitempty"`
	// DeadNodes, when set, is the file where the parent records the nodes
	// whose kubelet died (WriteDeadNodes), for a cluster whose nodes the
	// parent watches (cluster.Faults).
	DeadNodes string `json:"deadNodes,omitempty"`
	// SharedDir is the directory the workers share run-wide state in: their
	// quiet windows (package quiet: a case measuring how fast a
	// configuration change is enforced holds the other workers' writes of
	// that kind off) and the observations a case waited for in vain
	// (package absence).
	SharedDir string `json:"sharedDir,omitempty"`
	// StaticDirs and StaticProbes are the replicas' static admission
	// manifest directories (on this host) and what the first requests to
	// each replica met (cluster.StaticManifests), when the cluster has them.
	StaticDirs   []map[cluster.StaticPlugin]string `json:"staticDirs,omitempty"`
	StaticProbes []cluster.StaticBootProbe         `json:"staticProbes,omitempty"`
	// NotDeclared is cluster.NotDeclared's reasons.
	NotDeclared map[features.Name]string `json:"notDeclared,omitempty"`
}

// Node is a node of the cluster.
type Node struct {
	Name         string          `json:"name"`
	Capabilities []features.Name `json:"capabilities,omitempty"`
}

// PluginHost is nodes.PluginHost.
type PluginHost struct {
	ConfigDir string            `json:"configDir"`
	PluginDir string            `json:"pluginDir"`
	StateDir  string            `json:"stateDir"`
	Timeout   time.Duration     `json:"timeout"`
	Exec      *cluster.NodeExec `json:"exec,omitempty"`
}

// Routing says how a worker's webhook server is reached when the apiservers
// call this host through the in-cluster relay: the parent's router listens
// where the relay's tunnels deliver, terminates TLS with a certificate of
// the run's webhook CA, and passes each call to the worker named in its path.
type Routing struct {
	// Advertise is host:port the apiservers call (the relay Service).
	Advertise string `json:"advertise"`
	// CACert and CAKey are the run's webhook CA, PEM: every worker's
	// server and the router have certificates from it.
	CACert []byte `json:"caCert"`
	CAKey  []byte `json:"caKey"`
	// Dir is where a worker announces its server: a file named after its
	// route holding the server's address.
	Dir string `json:"dir"`
}

// SortedNames turns a feature set into the sorted list the file carries.
func SortedNames(s features.Set) []features.Name { return s.Sorted() }

// SetOf turns a list back into a set.
func SetOf(names []features.Name) features.Set { return features.NewSet(names...) }

// WriteAttach writes a to path, readable by the owner only.
func WriteAttach(path string, a Attach) error {
	a.APIVersion = AttachVersion
	a.Nodes = append([]Node(nil), a.Nodes...)
	sort.Slice(a.Nodes, func(i, j int) bool { return a.Nodes[i].Name < a.Nodes[j].Name })
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}

// ReadAttach reads an attach file.
func ReadAttach(path string) (Attach, error) {
	var a Attach
	data, err := os.ReadFile(path)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("%s is not an attach file: %w", path, err)
	}
	if a.APIVersion != AttachVersion {
		return a, fmt.Errorf("%s is %q, want %q (written by another version of run-conformance?)", path, a.APIVersion, AttachVersion)
	}
	if a.RunID == "" || a.Front.Host == "" || len(a.Replicas) == 0 {
		return a, fmt.Errorf("%s lacks the run ID or the cluster's endpoints", path)
	}
	return a, nil
}
