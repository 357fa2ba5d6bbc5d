// Package audit reads the apiservers' JSON audit logs, so specs can check the
// annotations admission leaves on a request (for example failed-open.*).
package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// Events returns every event in the given log files (one per apiserver
// replica) that match accepts, in file order. A file that does not exist yet
// holds no events.
func Events(paths []string, match func(auditv1.Event) bool) ([]auditv1.Event, error) {
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

func read(path string, match func(auditv1.Event) bool) ([]auditv1.Event, error) {
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
	for line := 1; scanner.Scan(); line++ {
		var e auditv1.Event
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			// The apiserver may be writing the last line right now.
			continue
		}
		if match(e) {
			out = append(out, e)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", path, err)
	}
	return out, nil
}

// ForObject matches the ResponseComplete event of verb on the named object.
func ForObject(verb, resource, namespace, name string) func(auditv1.Event) bool {
	return func(e auditv1.Event) bool {
		return e.Stage == auditv1.StageResponseComplete && e.Verb == verb && e.ObjectRef != nil &&
			e.ObjectRef.Resource == resource && e.ObjectRef.Namespace == namespace && e.ObjectRef.Name == name
	}
}
