package harness

import (
	"cmp"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// MaxJournalExcerpt is how many webhook calls a failed case's report keeps
// (the latest ones).
const MaxJournalExcerpt = 60

// A failed case carries what the fake webhooks saw while it ran, so the
// report explains the failure (which webhook saw what, in which order)
// without a rerun. Declared at the top level, this runs after every case of
// every suite, after the case's body and before its cleanups unregister
// anything. Cases run one at a time, so the calls received since the case
// started are the case's own.
var _ = ginkgo.JustAfterEach(func() {
	report := ginkgo.CurrentSpecReport()
	if !report.Failed() {
		return
	}
	env, err := Current()
	if err != nil || env.Webhooks == nil {
		return
	}
	journal := env.Webhooks.Journal()
	excerpt := JournalExcerpt(journal.Calls(), journal.InFlight(), report.StartTime, MaxJournalExcerpt)
	ginkgo.AddReportEntry(results.JournalEntry, excerpt, ginkgo.ReportEntryVisibilityNever)
})

// JournalExcerpt keeps the calls (finished, then in flight) received at or
// after since, in receipt order, at most limit of them (the latest).
func JournalExcerpt(finished, inFlight []fakewebhook.Call, since time.Time, limit int) results.JournalExcerpt {
	var kept []results.JournalCall
	add := func(calls []fakewebhook.Call, inFlight bool) {
		for _, c := range calls {
			if c.ReceivedAt.Before(since) {
				continue
			}
			kept = append(kept, journalCall(c, since, inFlight))
		}
	}
	add(finished, false)
	add(inFlight, true)
	slices.SortFunc(kept, func(a, b results.JournalCall) int { return cmp.Compare(a.Seq, b.Seq) })
	out := results.JournalExcerpt{Calls: []results.JournalCall{}}
	if len(kept) > limit {
		out.Omitted = len(kept) - limit
		kept = kept[len(kept)-limit:]
	}
	out.Calls = append(out.Calls, kept...)
	return out
}

func journalCall(c fakewebhook.Call, since time.Time, inFlight bool) results.JournalCall {
	end := c.FinishedAt
	if c.Answered() {
		end = c.RespondedAt
	}
	jc := results.JournalCall{
		Seq:        c.Seq,
		Webhook:    c.Webhook,
		Phase:      string(c.Phase),
		Path:       c.Path,
		Operation:  c.Operation,
		Resource:   resourceName(c),
		Namespace:  c.Namespace,
		Name:       c.Name,
		DryRun:     c.DryRun,
		ReceivedMs: milliseconds(c.ReceivedAt.Sub(since)),
		Action:     string(c.Action),
		Allowed:    c.Allowed,
		Answered:   c.Answered(),
		InFlight:   inFlight,
		Err:        c.Err,
	}
	if !end.IsZero() {
		jc.DurationMs = milliseconds(end.Sub(c.ReceivedAt))
	}
	return jc
}

func resourceName(c fakewebhook.Call) string {
	r := c.Resource
	if r.Resource == "" {
		return ""
	}
	name := r.Version + "/" + r.Resource
	if r.Group != "" {
		name = r.Group + "/" + name
	}
	if c.SubResource != "" {
		name += "/" + c.SubResource
	}
	return name
}

func milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
