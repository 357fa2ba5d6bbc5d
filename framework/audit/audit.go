// Package audit reads the apiservers' JSON audit logs, so specs can check the
// annotations admission leaves on a request (for example failed-open.*).
package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// Filter picks events from an audit log.
type Filter struct {
	// Needles are byte strings every line of a matching event contains:
	// lines without one are skipped before they are decoded, which is most
	// of the cost of reading a log of tens of thousands of events, read
	// again on every poll.
	Needles [][]byte
	// Match decides on a decoded event.
	Match func(auditv1.Event) bool
}

// Events returns every event in the given log files (one per apiserver
// replica) that match accepts, in file order. A file that does not exist yet
// holds no events.
func Events(paths []string, match Filter) ([]auditv1.Event, error) {
	var out []auditv1.Event
	for _, path := range paths {
		events, err := read(path, match)
		if err != nil {
			return nil, err
		}
		out = append(out, events...)
	}
	return out, nil
}

func read(path string, match Filter) ([]auditv1.Event, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []auditv1.Event
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for scanner.Scan() {
		if !containsAll(scanner.Bytes(), match.Needles) {
			continue
		}
		var e auditv1.Event
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			// The apiserver may be writing the last line right now.
			continue
		}
		if match.Match(e) {
			out = append(out, e)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", path, err)
	}
	return out, nil
}

func containsAll(line []byte, needles [][]byte) bool {
	for _, n := range needles {
		if !bytes.Contains(line, n) {
			return false
		}
	}
	return true
}

// ForObject matches the ResponseComplete event of verb on the named object.
// Its needles are the namespace and name as JSON strings, which the event's
// objectRef holds.
func ForObject(verb, resource, namespace, name string) Filter {
	return Filter{
		Needles: [][]byte{jsonString(namespace), jsonString(name)},
		Match: func(e auditv1.Event) bool {
			return e.Stage == auditv1.StageResponseComplete && e.Verb == verb && e.ObjectRef != nil &&
				e.ObjectRef.Resource == resource && e.ObjectRef.Namespace == namespace && e.ObjectRef.Name == name
		},
	}
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
