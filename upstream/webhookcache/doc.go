// Package webhookcache holds reproductions of upstream defects that the
// conformance suites found, run as ordinary Go tests against the pinned
// Kubernetes sources (go.mod's k8s.io/apiserver and k8s.io/client-go, read
// from the module cache; nothing here is copied or patched).
//
// Each test asserts that the defect is STILL PRESENT. When a bump of the
// pinned sources brings an upstream fix, the test fails: that is the signal
// to update (or drop) the note about the defect in docs/upstream-defects.md,
// and then to delete or invert the test.
//
// race_test.go: the webhook configuration managers of
// k8s.io/apiserver/pkg/admission/configuration can keep the accessors of an
// old configuration in their per-name cache after an update, so the update
// is not enforced until the configuration changes again. This is the rare
// "WebhookConfigurationPropagation: failurePolicy ... not enforced after 30s"
// failure seen under heavy configuration churn.
package webhookcache
