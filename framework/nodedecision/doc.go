// Package nodedecision is what nodeadmit specs stand on: picking a node,
// building pods bound to it, watching the node's decision and the kubelet's
// events, and installing fake KEP-2823 plugins on a node for one case.
// It returns errors; specs assert.
package nodedecision
