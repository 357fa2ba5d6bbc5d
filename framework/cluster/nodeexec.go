package cluster

// NodeExec runs the harness's own binary inside a node's container rather
// than on this host: a kind node has its own loopback and process IDs, and
// a node admission plugin the node's kubelet calls must live there (a gRPC
// plugin listens on the node's loopback, a shell plugin's server sees its
// script's process). The node's plugin directories are mounted at the same
// paths inside the node as here, so both sides name files alike.
type NodeExec struct {
	// Runtime is the container engine's command ("docker").
	Runtime string `json:"runtime"`
	// Container is the node's container.
	Container string `json:"container"`
	// Executable is the harness's binary as seen inside the node.
	Executable string `json:"executable"`
}

// Argv is the command that runs Executable with args and the extra
// environment env in the node, its stdin attached: closing the stdin of
// this command (or killing it) ends a child that watches its stdin.
func (e NodeExec) Argv(env []string, args ...string) []string {
	argv := []string{e.Runtime, "exec", "-i"}
	for _, kv := range env {
		argv = append(argv, "-e", kv)
	}
	argv = append(argv, e.Container, e.Executable)
	return append(argv, args...)
}
