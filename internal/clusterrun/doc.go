// Package clusterrun runs the harness in the cluster it checks: a Job of the
// harness image (`run-conformance image`, this same binary) whose pod serves
// the fake webhooks behind a Service of its own namespace, so the apiservers
// call it directly (no relay, no port-forward) and the webhook journal's
// times are taken next to the cluster.
//
// It makes the objects (objects.go: Namespace with restricted Pod Security
// labels, ServiceAccount, a ClusterRole and binding holding exactly the
// permissions the kubeconfig provider's preflight checks, Service, the
// ConfigMap of the pod's options file, its one input, and the Job),
// creates, follows and deletes them (deploy.go), and carries the report dir
// from the pod back to the user (results.go: the pod stores it, gzipped, in
// ConfigMaps of its namespace when it ends; they outlive the pod, so a run
// whose client went away can be fetched later).
//
// Under a service account the user manages (WithServiceAccount,
// account.go) the run owns no namespace and creates no account, role or
// binding: its Service, ConfigMaps and Job go in the account's namespace,
// CheckAccount says beforehand what the account lacks, and Delete removes
// only what carries the run's label (inventory.go).
//
// Everything it creates carries RunLabel=<run ID>; what the run's specs
// create carries the harness's own admission-conformance.io/run label with
// the same ID. The two differ so that the harness's end-of-run sweep, which
// runs in the pod, never deletes the pod's own namespace.
package clusterrun
