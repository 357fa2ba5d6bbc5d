// Package quiet gives a case that measures how fast an admission
// configuration change is enforced a window in which no other case of the
// run writes configurations of the same kind.
//
// An apiserver re-reads its webhook configurations (or recompiles its
// policies) on every informer notification of that kind. A measurement taken
// while other cases create and delete configurations beside it measures
// their churn as much as the change under test: a build whose notifications
// arrive late still looks prompt, because a neighbour's notification
// refreshes the cached list first. The gate holds such writes off:
//
//   - every harness client's writes to admissionregistration.k8s.io take the
//     kind's lock shared for the length of the request (Gate.Wrap);
//   - a measuring case takes the kinds it measures exclusively for the whole
//     case (Gate.Hold), after the writes in flight end; its own writes pass;
//   - before its first change it waits until the kind's earlier writes can
//     no longer be notified late (Gate.LastWrite, used by the harness).
//
// The locks are flock(2) locks on files in a directory all of a run's
// worker processes share, so they also hold across processes and are
// released by the kernel when a process dies.
package quiet
