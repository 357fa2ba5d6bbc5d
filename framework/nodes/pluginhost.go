package nodes

import (
	"time"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
)

// PluginHost is where a node's KEP-2823 plugin host looks, and how long it
// waits for each plugin.
type PluginHost struct {
	// ConfigDir holds the plugin configuration file.
	ConfigDir string
	// PluginDir holds the plugins (executables, port files, sockets).
	PluginDir string
	// StateDir is free for the harness's fake plugins (their journals).
	StateDir string
	// Timeout bounds each plugin call.
	Timeout time.Duration
	// Exec, if set, runs the fake plugins' servers in the node's container
	// (a kind node); nil runs them on this host (hollow nodes).
	Exec *cluster.NodeExec
}

// PluginHosts is implemented by clusters whose nodes host KEP-2823 plugins
// the harness can configure (the embedded cluster).
type PluginHosts interface {
	// NodePluginHost returns the plugin host of the named node.
	NodePluginHost(node string) (PluginHost, bool)
}
