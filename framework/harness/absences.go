package harness

// Absences are the observations a case of the run waited for in vain (an
// event the kubelet should record, a status a controller should write): a
// case needing one waits less once another has waited the full bound.
// The engine keeps them (internal/absence: in memory, or in a directory a
// parallel run's workers share) and hands them in through Engine.Absences
// (Config and AttachConfig embed Engine), since harness imports nothing internal.
type Absences interface {
	// Note records that a case waited in vain for what, and why (one
	// line).
	Note(what, cause string) error
	// Noted returns the cause of an earlier case's vain wait for what, if
	// one is on record.
	Noted(what string) (cause string, ok bool)
	// Clear removes the note on what: it was observed after all.
	Clear(what string)
}
