// Package nodeadmit checks node-side pod admission (seed 004, KEP-2823):
// the kubelet's own rejections, each with its exact Reason, and the
// node-local admission plugins of the project's reference plugin host. Pods
// name their node (spec.nodeName), so no scheduler takes part. One file per
// behaviour; the shared flow of a rejection is in rejection.go.
package nodeadmit
