package cluster

// Faults is implemented by clusters that notice when a component dies
// during a run: the embedded cluster's hollow kubelets are child processes
// whose exit it sees. The cases that need a dead component then fail at
// once, naming it, instead of each waiting out its bounds.
type Faults interface {
	// DeadNodes returns, for each node whose kubelet has died, how it
	// died; nothing while every node runs.
	DeadNodes() map[string]error
}
