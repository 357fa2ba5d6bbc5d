// Package webhook is the reference implementation's mutating admission
// webhook: on pod CREATE it assigns the initializers whose rules match
// (configurations sorted by name, the order within one kept, any rule
// matching is enough), holds the pod with one scheduling gate per
// initializer, and records the assignment on the pod. While no read of the
// configurations has succeeded for the block window it denies every create
// it sees with reason LoadingConfiguration (seed 002: "If there isn't any
// successful read in the last 5s, the admission controllers block all
// incoming request").
package webhook
