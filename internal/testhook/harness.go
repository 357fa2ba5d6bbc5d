package testhook

import (
	"context"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// Harness is the points of harness.Boot at which the harness's own tests
// panic or pause a run: harness is public and imports nothing internal,
// so the engine hands them in (harness.Engine.Hooks).
func Harness() harness.Hooks {
	return harness.Hooks{
		ClusterStarted:   func() { Panic(Boot) },
		InitializersRBAC: func(ctx context.Context) { PauseContext(ctx, ReferenceInstall) },
	}
}
