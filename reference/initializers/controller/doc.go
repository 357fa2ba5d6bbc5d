// Package controller is the reference implementation's timeout enforcer.
// It watches the pods being initialized and gives each assigned initializer
// its timeout from the moment it reaches the head of the pod's list (the
// moment the controller observes it there, which is never before the change
// that put it there was stored). When the timeout passes:
//
//   - failurePolicy Ignore: the initializer's gate is removed and a Warning
//     event (reason InitializerTimeoutIgnored) is emitted; the next
//     initializer's turn begins.
//   - failurePolicy Fail: the pod fails: status phase Failed, reason
//     InitializerTimeout, condition initializers.admission-conformance.io/Initialized
//     False, a Warning event (reason InitializerTimeout). Its remaining gates
//     stay, so it is never bound; a controller that owns it (a ReplicaSet)
//     replaces it, as a client would retry a create that timed out.
//
// A read-repair sweep acts on the head of every pod older than the global
// timeout, whatever became of the timers (a restarted controller).
//
// When the last assigned initializer is gone the controller removes the
// initializing label: the pod is initialized.
package controller
