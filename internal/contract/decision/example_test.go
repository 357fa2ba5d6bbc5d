package decision_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/internal/contract/decision"
)

// A contract table gives each inventory entry (here, field paths of a
// webhook configuration) a decision: the clauses whose specs check it, what
// of it no spec checks yet, or why the contract needs nothing of it. The
// tests validate every decision and count the inventory against the table;
// an entry the table lacks counts as unmapped.
func Example() {
	table := map[string]decision.Decision{
		"webhooks[].name":                  decision.Of("config.validate.webhook-name", "answer.denial.status"),
		"webhooks[].timeoutSeconds":        decision.Of("failure.timeout").WithGap("the upper bound of 30 seconds"),
		"webhooks[].clientConfig.caBundle": {Gap: "a bundle that does not sign the server's certificate"},
		"metadata":                         decision.OutOfScope("generic object metadata"),
		"webhooks[].sideEffects":           {OutOfScope: "dry-run", Clauses: []string{"review.dry-run"}},
	}
	inventory := []string{"metadata", "webhooks[].clientConfig.caBundle", "webhooks[].matchPolicy",
		"webhooks[].name", "webhooks[].sideEffects", "webhooks[].timeoutSeconds"}

	var counts decision.Counts
	for _, entry := range inventory {
		d, decided := table[entry]
		if decided {
			if err := d.Validate(); err != nil {
				fmt.Println(entry+":", err)
			}
		}
		counts.Add(d, decided)
	}
	fmt.Printf("%+v\n", counts)
	// Output:
	// webhooks[].sideEffects: OutOfScope excludes Clauses and Gap
	// {Mapped:2 WithGap:1 OnlyGap:1 OutOfScope:2 Unmapped:1}
}
