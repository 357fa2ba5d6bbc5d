package harness

import "errors"

// Engine is what the run hands every environment it boots or attaches:
// the parts that depend on internal code (the pinned Kubernetes' field
// inventory, the rights checks, the register of vain waits, the harness's
// own test hooks), since harness imports nothing internal.
// internal/engineparts builds the run's.
type Engine struct {
	// Absences keeps the run's vain waits (required); an attached
	// worker's is shared with the run's other workers.
	Absences Absences
	// Rights tells the rights the run's user lacks (required).
	Rights Rights
	// Fields records what cases do with the admission API's fields
	// (required).
	Fields Fields
	// Hooks are where the harness's own tests break or pause a boot on
	// purpose (Boot only); the zero value does nothing.
	Hooks Hooks
}

func (e Engine) validate() error {
	if e.Absences == nil || e.Rights == nil || !e.Fields.complete() {
		return errors.New("the engine's Absences, Rights and Fields are required")
	}
	return nil
}
