// Package kind is the provider for real kind clusters, through kind's Go API
// (sigs.k8s.io/kind/pkg/cluster): Docker containers as nodes, real kubelets
// and containerd, kubeadm's control plane. No kind binary is used.
//
// Topologies: single (one control-plane node), multi (one control plane, two
// workers), ha (three control planes behind kind's load balancer, one
// worker). The harness's fake webhooks run on this host and are reached by
// the apiservers at the kind network's gateway address, which the webhook
// certificate carries.
//
// A cluster the provider creates is deleted on Stop unless WithKeepCluster;
// a cluster that already exists under the given name is reused and never
// deleted. Every cluster it creates is written down in a ledger
// (LedgerDir) until deleted, so `run-conformance cleanup` can remove the
// clusters of a killed run.
package kind
