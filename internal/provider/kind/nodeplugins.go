package kind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/exec"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	clusternodes "github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// PluginHost is how the provider sets up the KEP-2823 plugin host of the
// nodes it creates. The node image's kubelet hosts it when built by
// hack/kind/build-node-image.sh for the release the harness pins; the
// provider gives every node the directories it reads (see withNodePlugins).
type PluginHost struct {
	// Off leaves the nodes as upstream's: no plugin directories.
	Off bool
	// Timeout bounds each plugin call (nodeadmission.DefaultTimeout if 0).
	Timeout time.Duration
	// Deliberate faults of the host (nodeadmission.Host), for the harness's
	// own tests that the node plugin specs fail on a broken real node.
	FailOpen, RejectLate, IgnoreRejections bool
}

// WithPluginHost sets up the created nodes' plugin hosts as h says.
func WithPluginHost(h PluginHost) Option { return optionFunc(func(p *Provider) { p.pluginHost = h }) }

// nodeAdmissionDir is the subdir of the work dir holding every node's
// plugin host dir (node-0, node-1, ... in the order of the kind
// configuration's nodes) and bin/, the harness's binary the fake plugins'
// servers run from.
const nodeAdmissionDir = "node-admission"

// withNodePlugins gives every node of cfg a plugin host dir below
// dir/node-admission, with conf/ (the plugin configuration), plugins/ and
// state/ (the fakes' journals and calls) and a host.json naming them. It is
// mounted into the node twice: at the same path, so that the fakes' servers
// (run in the node, cluster.NodeExec) and the harness here name every file
// alike; and at nodeadmission.HostConfigDir, where the kubelet looks. bin/
// is mounted read-only: loadPluginHosts puts the harness's binary there.
func withNodePlugins(cfg *v1alpha4.Cluster, dir string, h PluginHost) error {
	if h.Off {
		return nil
	}
	root := filepath.Join(dir, nodeAdmissionDir)
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	for i := range cfg.Nodes {
		host := filepath.Join(root, "node-"+strconv.Itoa(i))
		c := nodeadmission.HostConfig{ConfigDir: filepath.Join(host, "conf"), PluginDir: filepath.Join(host, "plugins"),
			FailOpen: h.FailOpen, RejectLate: h.RejectLate, IgnoreRejections: h.IgnoreRejections}
		if h.Timeout > 0 {
			c.Timeout = h.Timeout.String()
		}
		for _, d := range []string{c.ConfigDir, c.PluginDir, filepath.Join(host, "state")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		data, err := nodeadmission.EncodeHostConfig(c)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(host, nodeadmission.HostConfigFile), data, 0o644); err != nil {
			return err
		}
		cfg.Nodes[i].ExtraMounts = append(cfg.Nodes[i].ExtraMounts,
			v1alpha4.Mount{HostPath: host, ContainerPath: host},
			v1alpha4.Mount{HostPath: host, ContainerPath: nodeadmission.HostConfigDir},
			v1alpha4.Mount{HostPath: bin, ContainerPath: bin, Readonly: true})
	}
	return nil
}

// executableName is the harness's binary in bin/.
const executableName = "admission-conformance"

// placeExecutable puts this process's own binary at path, in place of
// what is there (a server started after this runs this binary; one running
// keeps its own file): a hard link if path is on its file system, an atomic
// copy otherwise.
func placeExecutable(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	tmp := path + ".new"
	_ = os.Remove(tmp)
	if err := os.Link(exe, tmp); err == nil {
		return os.Rename(tmp, path)
	}
	in, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.WriteFunc(path, 0o755, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// loadPluginHosts finds each node's plugin host: the host dir mounted at
// nodeadmission.HostConfigDir in its container (docker inspect), in which
// its kubelet wrote kubelet.json naming the node when it started
// (hack/kind/cmd/kubelet). The mounts, not this run's work dir, say where,
// so a cluster created by an earlier run (kept, then reused) hosts plugins
// as long as its dirs remain. The harness's binary the fakes' servers run
// is this run's: it replaces the one in bin/. A node without the mount (a
// cluster created otherwise) or whose kubelet wrote nothing (upstream's
// kubelet) declares no plugin host; notHosted says why.
func (c *kindCluster) loadPluginHosts(ctx context.Context, timeout, poll time.Duration) error {
	c.pluginHosts = map[string]clusternodes.PluginHost{}
	var why []string
	for _, node := range c.kubeletNodes() {
		dir, err := hostDirOf(ctx, node)
		if err != nil {
			return err
		}
		if dir == "" {
			why = append(why, node+" has no plugin host dir mounted (clusters the provider creates have one)")
			continue
		}
		var ready nodeadmission.Ready
		err = wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(context.Context) (bool, error) {
			ready, err = nodeadmission.ReadReady(dir)
			if errors.Is(err, os.ErrNotExist) {
				return false, nil
			}
			return err == nil, err
		})
		switch {
		case wait.Interrupted(err):
			why = append(why, node+"'s kubelet is upstream's: it hosts no node admission plugins "+
				"(make kind-image builds one that does, for the release the harness pins)")
			continue
		case err != nil:
			return fmt.Errorf("node plugin host of %s: %w", node, err)
		case ready.Node != node:
			return fmt.Errorf("node plugin host dir %s is %s's, not %s's", dir, ready.Node, node)
		}
		hc, err := nodeadmission.ReadHostConfig(dir)
		if err != nil {
			return fmt.Errorf("node plugin host of %s: %w", node, err)
		}
		h, err := hc.Host()
		if err != nil {
			return fmt.Errorf("node plugin host of %s: %w", node, err)
		}
		bin := filepath.Join(filepath.Dir(dir), "bin", executableName)
		if err := placeExecutable(bin); err != nil {
			return fmt.Errorf("node plugin host of %s: %w", node, err)
		}
		c.pluginHosts[node] = clusternodes.PluginHost{ConfigDir: hc.ConfigDir, PluginDir: hc.PluginDir,
			StateDir: filepath.Join(dir, "state"), Timeout: h.EffectiveTimeout(),
			Exec: &cluster.NodeExec{Runtime: "docker", Container: node, Executable: bin}}
	}
	c.notHosted = strings.Join(why, "; ")
	return nil
}

// hostDirOf is the host dir mounted at nodeadmission.HostConfigDir in
// node's container, or "" if none is.
func hostDirOf(ctx context.Context, node string) (string, error) {
	out, err := exec.Output(exec.CommandContext(ctx, "docker", "inspect", "--format", "{{json .Mounts}}", node))
	if err != nil {
		return "", fmt.Errorf("mounts of kind node %s: %w", node, errors.Join(err, runErrorOutput(err)))
	}
	var mounts []struct{ Source, Destination string }
	if err := json.Unmarshal(out, &mounts); err != nil {
		return "", fmt.Errorf("mounts of kind node %s: %w", node, err)
	}
	for _, m := range mounts {
		if m.Destination == nodeadmission.HostConfigDir {
			return m.Source, nil
		}
	}
	return "", nil
}

// NotDeclaredReasons implements cluster.NotDeclared.
func (c *kindCluster) NotDeclaredReasons() map[features.Name]string {
	out := map[features.Name]string{}
	if c.notHosted != "" && len(c.pluginHosts) == 0 {
		out[features.NodeAdmissionPlugins] = c.notHosted
	}
	if c.notBalanced != "" {
		out[features.WebhookRoundTripLoadBalancing] = c.notBalanced
	}
	if c.staticReason != "" && len(c.staticDirs) == 0 {
		out[features.StaticAdmissionManifests] = c.staticReason
	}
	return out
}

var _ cluster.NotDeclared = (*kindCluster)(nil)

// NodePluginHost implements clusternodes.PluginHosts.
func (c *kindCluster) NodePluginHost(node string) (clusternodes.PluginHost, bool) {
	h, ok := c.pluginHosts[node]
	return h, ok
}

var _ clusternodes.PluginHosts = (*kindCluster)(nil)
