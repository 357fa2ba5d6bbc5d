// Package install installs the reference implementation of seed 002's
// initializers on a cluster and runs it from this process: the
// InitializerConfiguration CRD, the fail-open-at-creation policy, RBAC for
// the identities its parts run as, the configuration poller, the mutating
// webhook (served here over TLS), the timeout controller and the update
// mutator exemption. Close removes all of it.
//
// Its parts act as their own users through impersonation of the admin
// identity it is given, so each has only the rights its RBAC grants: the
// poller can only list configurations, and removing its binding cuts it off
// alone.
package install
