package testhook

import "testing"

// TestWebhookErrorsInEvenRepetitionsOnly: the intermittent fault applies
// in the even repetitions of a repeated run, and only when it is injected.
func TestWebhookErrorsInEvenRepetitionsOnly(t *testing.T) {
	for _, rep := range []int{0, 1, 2, 3, 4} {
		if got := WebhookErrors(rep); got != "" {
			t.Errorf("no fault injected, repetition %d: %q", rep, got)
		}
	}
	t.Setenv(FaultEnv, WebhookErrorsOnEvenRepetitions)
	for rep, want := range []string{"", "", WebhookErrorsOnEvenRepetitions, "", WebhookErrorsOnEvenRepetitions} {
		if got := WebhookErrors(rep); got != want {
			t.Errorf("repetition %d: %q, want %q", rep, got, want)
		}
	}
}
