package parallel

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
)

// The hollow kubelets are child processes of the parent, so only the parent
// sees one die (cluster.Faults). It records the dead ones in a file the
// attach file names (Attach.DeadNodes); workers read it, so that their cases
// needing a node fail at once, naming it, as in a serial run.

// WriteDeadNodes records dead (node name -> how its kubelet ended) at path,
// atomically: a worker reads either the old list or the new one.
func WriteDeadNodes(path string, dead map[string]error) error {
	msgs := make(map[string]string, len(dead))
	for n, err := range dead {
		msgs[n] = err.Error()
	}
	raw, err := json.Marshal(msgs)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, raw, 0o600)
}

// ReadDeadNodes is what WriteDeadNodes recorded at path; a file not written
// yet means no node died.
func ReadDeadNodes(path string) (map[string]error, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]error{}, nil
	}
	if err != nil {
		return nil, err
	}
	var msgs map[string]string
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, fmt.Errorf("dead nodes file %s: %w", path, err)
	}
	dead := make(map[string]error, len(msgs))
	for n, m := range msgs {
		dead[n] = errors.New(m)
	}
	return dead, nil
}
