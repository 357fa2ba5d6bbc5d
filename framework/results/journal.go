package results

// JournalEntry is the name of the Ginkgo report entries that carry a
// JournalExcerpt.
const JournalEntry = "journal"

// JournalExcerpt is what the fake webhooks saw during a failed case, in the
// order they received it, so a report can explain the failure without a
// rerun.
type JournalExcerpt struct {
	// Calls are in receipt order.
	Calls []JournalCall `json:"calls"`
	// Omitted counts earlier calls left out to keep the excerpt short.
	Omitted int `json:"omitted,omitempty"`
}

// JournalCall is one webhook call as a report shows it.
type JournalCall struct {
	// Seq orders calls across the whole run.
	Seq     int64  `json:"seq"`
	Webhook string `json:"webhook,omitempty"`
	Phase   string `json:"phase,omitempty"`
	Path    string `json:"path"`
	// Operation, Resource, Namespace and Name describe the request.
	Operation string `json:"operation,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	DryRun    bool   `json:"dryRun,omitempty"`
	// ReceivedMs is when the call arrived, in milliseconds since the case
	// started.
	ReceivedMs float64 `json:"receivedMs"`
	// DurationMs is how long the webhook took to answer (or to give up).
	DurationMs float64 `json:"durationMs"`
	// Action is what the fake webhook did (allow, deny, patch, hang...).
	Action   string `json:"action,omitempty"`
	Allowed  bool   `json:"allowed"`
	Answered bool   `json:"answered"`
	// InFlight is set for calls still being handled when the case ended.
	InFlight bool   `json:"inFlight,omitempty"`
	Err      string `json:"err,omitempty"`
}
