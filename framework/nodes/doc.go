// Package nodes starts hollow kubelets for the embedded cluster: N nodes,
// each a child process of the harness's own binary running the real kubelet
// (framework/nodes/hollow), registered, Ready and warmed up before specs
// run, and killed before the control plane stops.
//
// Every binary that starts nodes must call RunIfChild first thing in main
// (and in TestMain): the nodes are that same binary, re-executed with
// ADMISSION_CONFORMANCE_CHILD set (see internal/childproc).
package nodes
