package certify

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
)

// Value is one fingerprint value and where it came from.
type Value struct {
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// NotExposed is the value of what the cluster does not expose.
const NotExposed = "not exposed"

// Fingerprint is fingerprint.json: the cluster as read from itself, where
// it can be, each value with its source.
type Fingerprint struct {
	APIVersion    string    `json:"apiVersion"`
	Kind          string    `json:"kind"`
	CollectedAt   time.Time `json:"collectedAt"`
	ServerVersion Value     `json:"serverVersion"`
	// KubernetesVersion is ServerVersion, or, when the apiserver was built
	// without Kubernetes' release ldflags (v0.0.0-...), what the provider
	// knows (the embedded provider: the k8s.io/kubernetes module).
	KubernetesVersion Value `json:"kubernetesVersion"`
	GitCommit         Value `json:"gitCommit"`
	FeatureGates      Value `json:"featureGates"`
	AdmissionPlugins  Value `json:"admissionPlugins"`
	APIServerReplicas Value `json:"apiserverReplicas"`
	KubeletVersions   Value `json:"kubeletVersions"`
	Provider          Value `json:"provider"`
}

const (
	srcVersion = "GET /version (discovery) through the cluster's front door"
	srcGates   = "GET /metrics of each apiserver replica the harness reaches: kubernetes_feature_enabled{name} == 1"
	srcPlugins = "GET /metrics of each apiserver replica the harness reaches: the name label of apiserver_admission_controller_admission_duration_seconds " +
		"(only plugins that handled a request since the apiserver started; webhooks and policies are not plugins)"
	srcLeases  = "Leases in kube-system labelled apiserver.kubernetes.io/identity=kube-apiserver (one per live apiserver; an apiserver that stopped keeps its lease until it expires)"
	srcKubelet = "Node status.nodeInfo.kubeletVersion of every Node"
)

// Collect reads the fingerprint from the cluster. What cannot be read says
// why in its source; Collect itself never fails.
func Collect(ctx context.Context, c cluster.Cluster) Fingerprint {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	fp := Fingerprint{APIVersion: APIVersion, Kind: "Fingerprint", CollectedAt: time.Now().UTC().Round(time.Second),
		Provider: Value{Value: c.Provider(), Source: "the harness: the provider that started or reached the cluster (--provider)"}}
	client, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		unknown := Value{Value: "unknown", Source: "no client: " + err.Error()}
		fp.ServerVersion, fp.GitCommit, fp.FeatureGates, fp.AdmissionPlugins, fp.APIServerReplicas, fp.KubeletVersions = unknown, unknown, unknown, unknown, unknown, unknown
		fp.KubernetesVersion = unknown
		return fp
	}
	if v, err := client.Discovery().ServerVersion(); err != nil {
		fp.ServerVersion = Value{Value: "unknown", Source: srcVersion + " failed: " + err.Error()}
		fp.GitCommit, fp.KubernetesVersion = fp.ServerVersion, fp.ServerVersion
	} else {
		fp.ServerVersion = Value{Value: v.GitVersion, Source: srcVersion + ": gitVersion"}
		fp.GitCommit = Value{Value: v.GitCommit, Source: srcVersion + ": gitCommit"}
		fp.KubernetesVersion = fp.ServerVersion
		if strings.Contains(v.GitCommit, "$Format") {
			fp.GitCommit.Source += " (a placeholder: the apiserver was built without Kubernetes' release ldflags)"
		}
		if p, ok := c.(interface{ KubernetesVersion() string }); ok && strings.HasPrefix(v.GitVersion, "v0.0.0") {
			fp.KubernetesVersion = Value{Value: p.KubernetesVersion(), Source: "the " + c.Provider() + " provider: the k8s.io/kubernetes module its control plane was built from (" +
				srcVersion + " says " + v.GitVersion + ": built without release ldflags)"}
		}
	}
	fp.FeatureGates, fp.AdmissionPlugins = scrapeMetrics(ctx, c)
	fp.APIServerReplicas = replicas(ctx, client, c)
	if nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err != nil {
		fp.KubeletVersions = Value{Value: "unknown", Source: srcKubelet + " failed: " + err.Error()}
	} else {
		versions := map[string]string{}
		for _, n := range nodes.Items {
			versions[n.Name] = n.Status.NodeInfo.KubeletVersion
		}
		fp.KubeletVersions = Value{Value: versions, Source: srcKubelet}
	}
	return fp
}

func replicas(ctx context.Context, client kubernetes.Interface, c cluster.Cluster) Value {
	leases, err := client.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
	if err == nil && len(leases.Items) > 0 {
		return Value{Value: len(leases.Items), Source: srcLeases}
	}
	why := "none found"
	if err != nil {
		why = err.Error()
	}
	return Value{Value: len(c.ReplicaConfigs()), Source: "the harness: the replica endpoints the provider gives (" + srcLeases + ": " + why + ")"}
}

// scrapeMetrics reads the enabled feature gates and the admission plugins
// seen from every replica's /metrics.
func scrapeMetrics(ctx context.Context, c cluster.Cluster) (gates, plugins Value) {
	configs := c.ReplicaConfigs()
	if len(configs) == 0 {
		configs = []*rest.Config{c.RESTConfig()}
	}
	var enabled map[string]bool
	seen := map[string]bool{}
	var errs []string
	disagree := false
	for i, cfg := range configs {
		body, err := metricsOf(ctx, cfg)
		if err != nil {
			errs = append(errs, fmt.Sprintf("replica %d: %v", i, err))
			continue
		}
		g, p := parseMetrics(body)
		if enabled == nil {
			enabled = g
		} else if !sameSet(enabled, g) {
			disagree = true
		}
		for n := range p {
			seen[n] = true
		}
	}
	if enabled == nil {
		why := "GET /metrics failed: " + strings.Join(errs, "; ")
		return Value{Value: "unknown", Source: why}, Value{Value: "unknown", Source: why}
	}
	gateSource := srcGates
	if disagree {
		gateSource += "; the replicas disagree, these are the first's"
	}
	if len(enabled) == 0 {
		gates = Value{Value: NotExposed, Source: gateSource + ": the metric is absent"}
	} else {
		gates = Value{Value: sortedKeys(enabled), Source: gateSource}
	}
	if len(seen) == 0 {
		plugins = Value{Value: NotExposed, Source: srcPlugins + ": no series"}
	} else {
		plugins = Value{Value: sortedKeys(seen), Source: srcPlugins}
	}
	return gates, plugins
}

func metricsOf(ctx context.Context, cfg *rest.Config) ([]byte, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return client.Discovery().RESTClient().Get().AbsPath("/metrics").SetHeader("Accept", "text/plain").DoRaw(ctx)
}

// parseMetrics reads the Prometheus text format: the enabled gates of
// kubernetes_feature_enabled and the plugin names of
// apiserver_admission_controller_admission_duration_seconds.
func parseMetrics(body []byte) (gates, plugins map[string]bool) {
	gates, plugins = map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "kubernetes_feature_enabled{"):
			if name := label(line, "name"); name != "" && strings.HasSuffix(strings.TrimSpace(line), " 1") {
				gates[name] = true
			}
		case strings.HasPrefix(line, "apiserver_admission_controller_admission_duration_seconds_count{"):
			if name := label(line, "name"); name != "" {
				plugins[name] = true
			}
		}
	}
	return gates, plugins
}

func label(line, name string) string {
	i := strings.Index(line, "{")
	j := strings.LastIndex(line, "}")
	if i < 0 || j < i {
		return ""
	}
	for _, kv := range strings.Split(line[i+1:j], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.TrimSpace(k) == name {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
