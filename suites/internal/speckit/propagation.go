package speckit

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// PropagationSamples is how many times each change is measured per replica.
const PropagationSamples = 5

// Latencies collects enforcement latencies per apiserver replica and records
// every sample and the per-replica p50/p95/max, each with its bound.
type Latencies struct {
	Name       string
	Bound      time.Duration
	PerReplica map[int][]time.Duration
	// Allowance is the most time beyond bound a sample was allowed
	// (addAllowing): the summaries' bound.
	Allowance time.Duration
}

func NewLatencies(name string, bound time.Duration) *Latencies {
	return &Latencies{Name: name, Bound: bound, PerReplica: map[int][]time.Duration{}}
}

// Dephase waits before the next change so that successive changes land at
// four different phases of period. A case that changes again as soon as the
// last change is enforced (just after a refresh) makes every change at the
// same phase, and a late notification then costs the same every time: a
// policy notification 1.5 s late was enforced 1.99 s after each such
// change, within the 2 s bound, where a change made at another phase waits
// up to 2.5 s.
func (l *Latencies) Dephase(ctx context.Context, period time.Duration) error {
	n := 0
	for _, samples := range l.PerReplica {
		n = max(n, len(samples))
	}
	t := time.NewTimer(time.Duration(n%4) * period / 4)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// ExpectEachWithin asserts that the change named what was enforced within
// bound on every replica. enforce.Until's own limit is not enough: it ends
// on an enforced answer to a probe sent before the limit, which may come
// after it (PolicyFieldChanges passed a 2.007 s latency against 2 s so).
// The message says how long the apiserver took to answer the probe that saw
// the change: a stalled apiserver, not a late change, when that is most of
// the latency.
func ExpectEachWithin(perReplica []enforce.Seen, bound time.Duration, what string) {
	for replica, seen := range perReplica {
		gomega.ExpectWithOffset(1, seen.After).To(gomega.BeNumerically("<=", bound),
			"%s took %s to be enforced on apiserver replica %d, bound %s (the apiserver took %s to answer the probe that saw it)",
			what, seen.After, replica, bound, seen.Answer.Round(time.Millisecond))
	}
}

// Add records one change's latency on every replica.
func (l *Latencies) Add(f *harness.Framework, labels map[string]string, perReplica []enforce.Seen) {
	l.AddAllowing(f, labels, perReplica, 0)
}

// AddAllowing is Add for a change whose probe itself takes allowance
// (a webhook timeout waited out): its bound is the bound plus that.
func (l *Latencies) AddAllowing(f *harness.Framework, labels map[string]string, perReplica []enforce.Seen, allowance time.Duration) {
	l.Allowance = max(l.Allowance, allowance)
	up := (l.Bound + allowance).Seconds()
	for replica, seen := range perReplica {
		l.PerReplica[replica] = append(l.PerReplica[replica], seen.After)
		withReplica := map[string]string{"replica": fmt.Sprint(replica)}
		for k, v := range labels {
			withReplica[k] = v
		}
		f.Record(results.Measurement{Name: l.Name, Value: seen.After.Seconds(), Unit: "s", Bound: &up, Labels: withReplica})
	}
}

// Summarize records p50, p95 and max per replica.
func (l *Latencies) Summarize(f *harness.Framework) {
	up := (l.Bound + l.Allowance).Seconds()
	for replica, samples := range l.PerReplica {
		sorted := append([]time.Duration(nil), samples...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		for _, q := range []struct {
			name string
			at   float64
		}{{"p50", 0.50}, {"p95", 0.95}, {"max", 1}} {
			idx := int(q.at*float64(len(sorted))+0.5) - 1
			idx = max(0, min(idx, len(sorted)-1))
			f.Record(results.Measurement{Name: l.Name + "-" + q.name, Value: sorted[idx].Seconds(), Unit: "s", Bound: &up,
				Labels: map[string]string{"replica": fmt.Sprint(replica), "samples": fmt.Sprint(len(sorted))}})
		}
	}
}

// The isolation of specs measuring how fast a configuration change is
// enforced: another case's writes of the same kind would refresh the
// apiserver's view of all of them early and hide a late notification.
var (
	WebhookQuiet = spec.Isolation{Quiet: []quiet.Kind{quiet.WebhookConfigurations},
		Reason: "it measures how fast webhook configuration changes are enforced; other cases' webhook configuration writes would refresh the apiserver's list early"}
	ValidatingPolicyQuiet = spec.Isolation{Quiet: []quiet.Kind{quiet.ValidatingAdmissionPolicies},
		Reason: "it measures how fast validating policy and binding changes are enforced; other cases' writes of them would make the apiserver recompile early"}
	// CountsMutatingWebhooks: the audit annotations' index_N counts every
	// mutating webhook of the cluster, the static ones first, then the
	// configurations sorted by name, so another case's configuration or
	// static manifest coming or going while the case runs would move it;
	// the webhook configuration window and the static manifests held
	// exclusive keep them still.
	CountsMutatingWebhooks = spec.Isolation{Quiet: []quiet.Kind{quiet.WebhookConfigurations}, Exclusive: []string{spec.StaticManifestsState},
		Reason: "the audit annotations' index_N counts every mutating webhook of the cluster (static ones first, then configurations sorted by name), so other cases' configurations and static manifests coming and going would move it"}
	MutatingPolicyQuiet = spec.Isolation{Quiet: []quiet.Kind{quiet.MutatingAdmissionPolicies},
		Reason: "it measures how fast mutating policy and binding changes are enforced; other cases' writes of them would make the apiserver recompile early"}
)
