package harness

import "context"

// Hooks are points inside Boot that the engine may hand code to run at:
// the harness's own tests panic or pause a run there (internal/testhook),
// to check what users then see. A nil hook does nothing.
type Hooks struct {
	// ClusterStarted runs once the cluster runs, before the fake webhook
	// server starts.
	ClusterStarted func()
	// InitializersRBAC runs inside the reference initializers' install,
	// once their namespace and RBAC exist and before their CRD is created;
	// it must return when ctx ends, as the install's own waits do.
	InitializersRBAC func(ctx context.Context)
}
