// Package testhook lets the harness's own tests break the harness on purpose
// at a few named points, to check that what users see then (one error line,
// an exit code, nothing left behind) holds.
//
// The hook is an environment variable, hidden from users and read at each
// point:
//
//	ADMISSION_CONFORMANCE_INJECT_PANIC=<point>
//
// makes Panic(<point>) panic, and
//
//	ADMISSION_CONFORMANCE_INJECT_PAUSE=<point>
//
// makes Pause(<point>) sleep for PauseFor, so a test can signal or kill the
// run at a moment that otherwise passes too fast to catch. The points are
// the constants below; unset (as always outside those tests), Panic and
// Pause do nothing. Fault (below) injects a misbehaviour of the fake
// webhooks the same way.
package testhook

import (
	"context"
	"os"
	"time"
)

// PanicEnv names the point at which to panic; PauseEnv the one at which to
// pause.
const (
	PanicEnv = "ADMISSION_CONFORMANCE_INJECT_PANIC"
	PauseEnv = "ADMISSION_CONFORMANCE_INJECT_PAUSE"
	// PausedEnv names a file the pause creates as it begins, so a test
	// sees the moment (give a path outside the run's TMPDIR).
	PausedEnv = "ADMISSION_CONFORMANCE_INJECT_PAUSED"
)

// PauseFor is how long Pause sleeps.
const PauseFor = 3 * time.Second

// The named points.
const (
	// EmbeddedStart is inside the embedded provider's Start, once etcd runs,
	// as kube-apiserver[0] starts.
	EmbeddedStart = "embedded-start"
	// Boot is inside harness.Boot, once the cluster runs, before the fake
	// webhook server starts.
	Boot = "boot"
	// EmbeddedStop is inside the embedded cluster's Stop, once etcd has
	// stopped, before the run's dir is removed.
	EmbeddedStop = "embedded-stop"
	// Report is in the CLI's report writing, after results.json is written
	// and before the other reports are.
	Report = "report"
	// ReferenceInstall is inside the reference initializers' install, once
	// its namespace and RBAC exist, before its CRD is created (a
	// PauseContext point).
	ReferenceInstall = "reference-install"
)

// Panic panics if PanicEnv names point.
func Panic(point string) {
	if os.Getenv(PanicEnv) == point {
		panic("injected panic at " + point + " (" + PanicEnv + ")")
	}
}

// Pause sleeps for PauseFor if PauseEnv names point.
func Pause(point string) {
	if os.Getenv(PauseEnv) == point {
		paused()
		time.Sleep(PauseFor)
	}
}

// paused creates the file PausedEnv names, if any.
func paused() {
	if path := os.Getenv(PausedEnv); path != "" {
		_ = os.WriteFile(path, nil, 0o644)
	}
}

// PauseContext is Pause in work that watches ctx: it ends early when ctx
// does, as the wait it stands for would.
func PauseContext(ctx context.Context, point string) {
	if os.Getenv(PauseEnv) != point {
		return
	}
	paused()
	t := time.NewTimer(PauseFor)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// FaultEnv names a fault a test injects into what the harness itself
// serves, to see how a run reports a misbehaving implementation.
const FaultEnv = "ADMISSION_CONFORMANCE_INJECT_FAULT"

// WebhookErrorsOnEvenRepetitions makes every fake webhook that should
// allow or patch answer HTTP 500 instead during the even repetitions of a
// run with --repeat, and behave during the odd ones: an intermittent fault
// whose cases are flaky with a pass rate the test knows (2 of 4 with
// --repeat 4). Denials, which the harness's readiness markers are, stay as
// they are, so set-up still sees its webhooks ready.
const WebhookErrorsOnEvenRepetitions = "webhook-errors-on-even-repetitions"

// KindStaticNeverReloads makes the kind provider mount a copy of the
// second control plane's static manifest directory into its node instead
// of the directory the harness writes (kind.StaticNeverReloads): a
// control plane that never reloads, on which the static reload specs must
// fail.
const KindStaticNeverReloads = "kind-static-never-reloads"

// Fault reports whether FaultEnv names fault.
func Fault(fault string) bool { return os.Getenv(FaultEnv) == fault }

// WebhookErrors is the fault the fake webhooks of a process running
// repetition rep of a run inject (fakewebhook.WithInjectedErrors), "" for
// none: WebhookErrorsOnEvenRepetitions in the even repetitions of a run
// with --repeat (rep is 1-based; 0 in a run not repeated). The worker
// passes its repetition in, so no process-wide state holds it.
func WebhookErrors(rep int) string {
	if Fault(WebhookErrorsOnEvenRepetitions) && rep > 0 && rep%2 == 0 {
		return WebhookErrorsOnEvenRepetitions
	}
	return ""
}
