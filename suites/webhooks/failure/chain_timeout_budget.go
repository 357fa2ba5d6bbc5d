package failure

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"golang.org/x/net/http2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var chainTimeoutBudget = spec.Spec{
	ShortName: "ChainTimeoutBudget",
	Suite:     "webhooks",
	Description: "Webhooks called one after another share the request's deadline: a webhook called after earlier ones used " +
		"most of it is given (and told in ?timeout=) only what is left, not its own timeoutSeconds; an Ignore webhook cut " +
		"by the deadline does not rescue the request, which fails with 504 Timeout at the deadline (kubernetes issue " +
		"128162); a Fail webhook answering within what is left is used.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "002 Handling fail-open initializers / webhooks: the call is bounded by the webhook's timeout; kubernetes issue 128162",
}

// chainBudget is the request deadline the cases give (?timeout=), and
// chainFirst the timeoutSeconds of the hanging webhook that uses most of it.
const (
	chainBudget = 3 * time.Second
	chainFirst  = 2 * time.Second
)

var _ = harness.Describe(chainTimeoutBudget, func(f *harness.Framework) {
	hang := func(name string, seconds int32, policy admissionregistrationv1.FailurePolicyType) harness.Hook {
		return harness.Hook{Name: name, Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Hang},
			TimeoutSeconds: ptr.To(seconds), FailurePolicy: policy}
	}
	// create sends the subject with the chain's deadline as the timeout
	// query parameter alone, so the server's handling is measured rather
	// than the client giving up.
	create := func(ctx context.Context, cm *corev1.ConfigMap) (time.Duration, error) {
		var err error
		d := timed(func() {
			err = f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("configmaps").
				Param("timeout", chainBudget.String()).Body(cm).Do(ctx).Error()
		})
		return d, err
	}
	// callOf waits for a hook's call about cm: a hanging call is journaled
	// when the apiserver drops it, possibly after the client got its answer.
	callOf := func(ctx context.Context, hook harness.RegisteredHook, cm *corev1.ConfigMap) fakewebhook.Call {
		waitCtx, cancel := context.WithTimeout(ctx, f.Bounds.ObjectState.Duration)
		defer cancel()
		call, err := f.Env.Webhooks.Journal().WaitFor(waitCtx, func(c fakewebhook.Call) bool {
			return c.Path == hook.Path && c.Namespace == f.Namespace && c.Name == cm.Name
		})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "webhook %s must have been called", hook.FullName)
		return call
	}
	// expectGiven asserts the budget a webhook was told (?timeout=) is what
	// the earlier webhook left, not its own timeoutSeconds, and records it.
	expectGiven := func(call fakewebhook.Call, own time.Duration, policy admissionregistrationv1.FailurePolicyType) {
		given, err := time.ParseDuration(call.TimeoutParam)
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "the apiserver tells the webhook its timeout in ?timeout=, got %q", call.TimeoutParam)
		left := chainBudget - chainFirst
		m := speckit.Within(f, "chain-timeout-budget-given", given, left-f.Bounds.TimingSlack.Duration, left,
			map[string]string{"failurePolicy": string(policy), "timeoutSeconds": own.String()})
		gomega.ExpectWithOffset(1, given).To(gomega.BeNumerically("<", own), "the webhook must be given what the deadline leaves, not its own %s", own)
		gomega.ExpectWithOffset(1, m.Within()).To(gomega.BeTrue(), "the webhook was given %s; the %s deadline less the first webhook's %s leaves %s (slack %s)",
			given, chainBudget, chainFirst, left, f.Bounds.TimingSlack.Duration)
	}
	expectNotStored := func(ctx context.Context, cm *corev1.ConfigMap) {
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		gomega.ExpectWithOffset(1, apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a request that ran out of time must not be stored: %v", err)
	}

	ginkgo.It("two Ignore webhooks in series: the second gets what is left and the request fails at the deadline", func(ctx ginkgo.SpecContext) {
		second := 2 * time.Second
		reg, err := f.RegisterMutating(ctx, "ignore-chain",
			hang("first", int32(chainFirst/time.Second), admissionregistrationv1.Ignore),
			hang("second", int32(second/time.Second), admissionregistrationv1.Ignore))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		d, err := create(ctx, cm)
		m := speckit.Within(f, "chain-timeout-request-duration", d, chainBudget, chainBudget+f.Bounds.TimingSlack.Duration, map[string]string{"chain": "Ignore,Ignore"})
		gomega.Expect(err).To(gomega.HaveOccurred(), "every webhook is Ignore, but the request's deadline passed: it must fail")
		gomega.Expect(apierrors.IsTimeout(err) || isStreamResetAtDeadline(err)).To(gomega.BeTrue(),
			"a request whose deadline passed in admission fails with 504 Timeout (or its stream is reset, see isStreamResetAtDeadline), got %T: %v", err, err)
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "request took %s, want its deadline %s (slack %s)", d, chainBudget, f.Bounds.TimingSlack.Duration)
		expectNotStored(ctx, cm)

		first := callOf(ctx, reg.Hooks["first"], cm)
		gomega.Expect(first.TimeoutParam).To(gomega.Equal(chainFirst.String()), "the first webhook is given its own timeoutSeconds, shorter than the deadline")
		expectGiven(callOf(ctx, reg.Hooks["second"], cm), second, admissionregistrationv1.Ignore)
	})

	ginkgo.It("a Fail webhook after an Ignore one: answering within what is left, its answer is used", func(ctx ginkgo.SpecContext) {
		_, err := f.RegisterMutating(ctx, "ignore-first", hang("first", int32(chainFirst/time.Second), admissionregistrationv1.Ignore))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		answerAfter := (chainBudget - chainFirst) / 4
		own := 10 * time.Second
		reg, err := f.RegisterValidating(ctx, "fail-after", harness.Hook{Name: "deny",
			Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "denied within the budget", Delay: answerAfter},
			TimeoutSeconds: ptr.To(int32(own / time.Second)), FailurePolicy: admissionregistrationv1.Fail})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		d, err := create(ctx, cm)
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "the validating webhook answered within what was left: its denial must be the answer, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("denied within the budget"))
		want := chainFirst + answerAfter
		m := speckit.Within(f, "chain-timeout-request-duration", d, want, want+f.Bounds.TimingSlack.Duration, map[string]string{"chain": "Ignore,Fail answering"})
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "request took %s, want the first webhook's %s plus the answer's %s", d, chainFirst, answerAfter)
		expectGiven(callOf(ctx, reg.Hooks["deny"], cm), own, admissionregistrationv1.Fail)
	})

	ginkgo.It("a Fail webhook after an Ignore one: hanging past what is left, the request fails at the deadline", func(ctx ginkgo.SpecContext) {
		_, err := f.RegisterMutating(ctx, "ignore-first", hang("first", int32(chainFirst/time.Second), admissionregistrationv1.Ignore))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		own := 10 * time.Second
		reg, err := f.RegisterValidating(ctx, "fail-hang", hang("hang", int32(own/time.Second), admissionregistrationv1.Fail))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		d, err := create(ctx, cm)
		gomega.Expect(err).To(gomega.HaveOccurred(), "the Fail webhook never answered: the request must fail")
		m := speckit.Within(f, "chain-timeout-request-duration", d, chainBudget, chainBudget+f.Bounds.TimingSlack.Duration, map[string]string{"chain": "Ignore,Fail hanging"})
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "request took %s, want its deadline %s, not the webhook's own %s", d, chainBudget, own)
		gomega.Expect(apierrors.IsTimeout(err) || apierrors.IsInternalError(err) || isStreamResetAtDeadline(err)).To(gomega.BeTrue(),
			"at the deadline the request fails with 504 Timeout or, when the cut call's failure wins the race, 500 naming the webhook "+
				"(or its stream is reset, see isStreamResetAtDeadline); got %T: %v", err, err)
		expectNotStored(ctx, cm)
		expectGiven(callOf(ctx, reg.Hooks["hang"], cm), own, admissionregistrationv1.Fail)
	})
})

// isStreamResetAtDeadline tells the third way upstream ends a request whose
// deadline passed in admission: when the handler started its answer (the cut
// webhook's failure) just as the timeout filter fires, the filter can no
// longer write 504 and aborts the stream instead (k8s.io/apiserver
// pkg/server/filters/timeout.go, panic(http.ErrAbortHandler)), which an
// HTTP/2 client sees as a stream reset with INTERNAL_ERROR. The specs still
// require the deadline to be kept and nothing stored, so a request that is
// reset late, early, or after storing the object still fails them.
func isStreamResetAtDeadline(err error) bool {
	var se http2.StreamError
	if errors.As(err, &se) {
		return se.Code == http2.ErrCodeInternal
	}
	// net/http's bundled HTTP/2 client has its own, unexported, error type.
	msg := err.Error()
	return strings.Contains(msg, "stream error: stream ID") && strings.Contains(msg, "INTERNAL_ERROR")
}
