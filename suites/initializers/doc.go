// Package initializers holds the specs of hold-until-initialized semantics.
//
// Upstream Kubernetes removed initializers in 1.14 (metadata.initializers in
// 1.16); for pods, scheduling gates (GA in 1.30) took their place. The core
// and extended specs check that on any cluster: the old API stays removed,
// gates hold pods, can only be removed, and only a CREATE can add them.
//
// Seed 002's initializer contract (ordering across configurations, fail-open
// after a per-initializer timeout, Fail, 1 s propagation, the 5 s block,
// creation fail-open only) and seed 000's "update mutators do not run
// during initialization" have no upstream implementation. The reference
// profile checks them against the project's own implementation
// (reference/initializers), which the harness installs on request and which
// acts on this suite's namespaces only; fake initializer controllers
// (framework/fakeinitializer) play the initializers.
package initializers
