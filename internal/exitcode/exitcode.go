// Package exitcode is how every command ends: an exit code with the one
// line that says why. The engine, the cleanup and the checks of user input
// return an *Error so the command's main can exit with its code without
// knowing which part failed.
package exitcode

import (
	"fmt"
	"strings"
)

// Exit codes.
const (
	// Passed: all selected specs passed (compare: no regression).
	Passed = 0
	// Failed: a spec failed (compare: a regression), or the run was
	// interrupted once specs ran.
	Failed = 1
	// Usage: bad input, a cluster that could not be set up, or a panic
	// outside the specs (a bug).
	Usage = 2
)

// Error carries the exit code with the error.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Usagef is an error that exits 2 (bad input, set-up failed).
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// Failedf is an error that exits 1 (a case failed, or an interrupt once
// specs ran).
func Failedf(format string, args ...any) error {
	return &Error{Code: Failed, Err: fmt.Errorf(format, args...)}
}

// OneLine joins s into one line: users get one line per error.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
