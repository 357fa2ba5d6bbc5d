// Package absence remembers, for a whole run, which promised observations
// a case waited for in vain: an event the kubelet should record, a status a
// controller should write. Against a build that never makes one, every case
// needing it would otherwise wait out the same long bound, and a broken
// build's run would take many times a passing one's. After the first case
// has waited the full bound and failed, the next ones wait only as long as
// a working cluster takes, and their failure names the first one's cause;
// the first observation that does come clears the note, so one lost
// observation costs no more than one slow case.
package absence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
)

// Register is one process's side of the run's notes. Notes are files in a
// directory all of a run's worker processes share; a register without a
// directory (Local) keeps them in memory, for a process that runs every
// case of its run.
type Register struct {
	dir string

	mu    sync.Mutex
	notes map[string]string
}

// Local returns a register kept in this process.
func Local() *Register { return &Register{notes: map[string]string{}} }

// Open returns the register kept in dir.
func Open(dir string) (*Register, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("absence register: %w", err)
	}
	return &Register{dir: dir, notes: map[string]string{}}, nil
}

func (r *Register) path(what string) (string, error) {
	if what == "" || strings.ContainsAny(what, `/\`) || what == "." || what == ".." {
		return "", fmt.Errorf("absence register: %q is not a note name", what)
	}
	return filepath.Join(r.dir, what), nil
}

// Note records that a case waited in vain for what, and why (one line).
func (r *Register) Note(what, cause string) error {
	if r.dir == "" {
		r.mu.Lock()
		r.notes[what] = cause
		r.mu.Unlock()
		return nil
	}
	p, err := r.path(what)
	if err != nil {
		return err
	}
	// Renamed into place: a reader sees the whole cause or none.
	if err := atomicfile.Write(p, []byte(cause), 0o600); err != nil {
		return fmt.Errorf("absence register: %w", err)
	}
	return nil
}

// Noted returns the cause of an earlier case's vain wait for what, if one
// is on record.
func (r *Register) Noted(what string) (cause string, ok bool) {
	if r.dir == "" {
		r.mu.Lock()
		defer r.mu.Unlock()
		cause, ok = r.notes[what]
		return cause, ok
	}
	p, err := r.path(what)
	if err != nil {
		return "", false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// Clear removes the note on what: it was observed after all.
func (r *Register) Clear(what string) {
	if r.dir == "" {
		r.mu.Lock()
		delete(r.notes, what)
		r.mu.Unlock()
		return
	}
	if p, err := r.path(what); err == nil {
		_ = os.Remove(p)
	}
}
