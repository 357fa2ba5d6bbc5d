// Package nodes is what node-side specs know of a cluster's nodes: the
// labels and extended resource every node the harness starts has
// (ExtendedResource, AppArmorLabel, HollowLabel, LackedFeatures), where a
// node's KEP-2823 plugin host looks (PluginHost, from a cluster that
// implements PluginHosts), and a pod's decision by the kubelet it is bound
// to (CreateAndDecide). framework/nodedecision builds on it.
//
// The harness starts and stops the embedded cluster's hollow kubelets
// itself (internal/nodeset); specs never start nodes.
package nodes
