package review

import (
	"context"
	"encoding/json"

	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// observers registers one mutating and one validating hook that allow
// everything their rules match, and returns them by phase.
func observers(ctx context.Context, f *harness.Framework, rules []admissionregistrationv1.RuleWithOperations) map[fakewebhook.Phase]harness.RegisteredHook {
	m, err := f.RegisterMutating(ctx, "observe-m", harness.Hook{Name: "m", Rules: rules, Behaviour: speckit.Allow()})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	v, err := f.RegisterValidating(ctx, "observe-v", harness.Hook{Name: "v", Rules: rules, Behaviour: speckit.Allow()})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return map[fakewebhook.Phase]harness.RegisteredHook{fakewebhook.Mutating: m.Hooks["m"], fakewebhook.Validating: v.Hooks["v"]}
}

// onePerPhase returns, for each phase, the single call of that phase's hook
// that match selects, failing unless there is exactly one.
func onePerPhase(f *harness.Framework, hooks map[fakewebhook.Phase]harness.RegisteredHook, what string, match func(fakewebhook.Call) bool) map[fakewebhook.Phase]fakewebhook.Call {
	out := map[fakewebhook.Phase]fakewebhook.Call{}
	for phase, hook := range hooks {
		calls := f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == hook.Path && match(c) })
		gomega.ExpectWithOffset(1, calls).To(gomega.HaveLen(1), "%s admission must be called exactly once for %s", phase, what)
		out[phase] = calls[0]
	}
	return out
}

// eachPerPhase is onePerPhase for requests the apiserver may admit more
// than once: an update without a resourceVersion is retried, admission
// included, when it meets a conflicting write. It returns every call, at
// least one per phase.
func eachPerPhase(f *harness.Framework, hooks map[fakewebhook.Phase]harness.RegisteredHook, what string, match func(fakewebhook.Call) bool) []fakewebhook.Call {
	var out []fakewebhook.Call
	for phase, hook := range hooks {
		calls := f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == hook.Path && match(c) })
		gomega.ExpectWithOffset(1, calls).NotTo(gomega.BeEmpty(), "%s admission must be called for %s", phase, what)
		out = append(out, calls...)
	}
	return out
}

// withOptions selects calls whose options carry fieldManager, which the
// spec sets to a value of its own on every request it tells apart.
func withOptions(fieldManager string) func(fakewebhook.Call) bool {
	return func(c fakewebhook.Call) bool {
		var o struct {
			FieldManager string `json:"fieldManager"`
		}
		return len(c.Options) > 0 && json.Unmarshal(c.Options, &o) == nil && o.FieldManager == fieldManager
	}
}

// expectOptions asserts a call's options are a meta.k8s.io/v1 kind with
// the given top-level fields.
func expectOptions(c fakewebhook.Call, kind string, fields map[string]any) {
	var got map[string]any
	gomega.ExpectWithOffset(1, json.Unmarshal(c.Options, &got)).To(gomega.Succeed(), "%s %s: options must be a JSON object, got %s", c.Phase, c.Operation, c.Options)
	gomega.ExpectWithOffset(1, got["kind"]).To(gomega.Equal(kind), "%s %s: options kind (options %s)", c.Phase, c.Operation, c.Options)
	gomega.ExpectWithOffset(1, got["apiVersion"]).To(gomega.Equal("meta.k8s.io/v1"), "%s %s: options apiVersion", c.Phase, c.Operation)
	for k, v := range fields {
		want, _ := json.Marshal(v)
		have, _ := json.Marshal(got[k])
		gomega.ExpectWithOffset(1, string(have)).To(gomega.Equal(string(want)), "%s %s: options.%s (options %s)", c.Phase, c.Operation, k, c.Options)
	}
}

// absent reports whether a raw request field was left out (or null).
func absent(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// expectTarget asserts kind, resource and subresource of a call, and that
// the request* fields equal them (no version conversion took place).
func expectTarget(c fakewebhook.Call, operation string, kind metav1.GroupVersionKind, resource metav1.GroupVersionResource, sub string) {
	gomega.ExpectWithOffset(1, c.Operation).To(gomega.Equal(operation), "%s admission: operation", c.Phase)
	gomega.ExpectWithOffset(1, c.Kind).To(gomega.Equal(kind), "%s %s: kind", c.Phase, operation)
	gomega.ExpectWithOffset(1, c.Resource).To(gomega.Equal(resource), "%s %s: resource", c.Phase, operation)
	gomega.ExpectWithOffset(1, c.SubResource).To(gomega.Equal(sub), "%s %s: subResource", c.Phase, operation)
	gomega.ExpectWithOffset(1, c.RequestKind).To(gomega.Equal(&kind), "%s %s: requestKind, without conversion, is kind", c.Phase, operation)
	gomega.ExpectWithOffset(1, c.RequestResource).To(gomega.Equal(&resource), "%s %s: requestResource, without conversion, is resource", c.Phase, operation)
	gomega.ExpectWithOffset(1, c.RequestSubResource).To(gomega.Equal(sub), "%s %s: requestSubResource", c.Phase, operation)
	gomega.ExpectWithOffset(1, c.UID).NotTo(gomega.BeEmpty(), "%s %s: uid", c.Phase, operation)
}

// expectUser asserts the userInfo a webhook got is want, field by field.
func expectUser(c fakewebhook.Call, want authenticationv1.UserInfo) {
	got := c.UserInfo
	gomega.ExpectWithOffset(1, got.Username).To(gomega.Equal(want.Username), "%s %s: userInfo.username", c.Phase, c.Operation)
	gomega.ExpectWithOffset(1, got.UID).To(gomega.Equal(want.UID), "%s %s: userInfo.uid", c.Phase, c.Operation)
	gomega.ExpectWithOffset(1, got.Groups).To(gomega.ConsistOf(want.Groups), "%s %s: userInfo.groups", c.Phase, c.Operation)
	gomega.ExpectWithOffset(1, len(got.Extra)).To(gomega.Equal(len(want.Extra)), "%s %s: userInfo.extra %v, want %v", c.Phase, c.Operation, got.Extra, want.Extra)
	for k, v := range want.Extra {
		gomega.ExpectWithOffset(1, got.Extra).To(gomega.HaveKeyWithValue(k, v), "%s %s: userInfo.extra[%s]", c.Phase, c.Operation, k)
	}
}
