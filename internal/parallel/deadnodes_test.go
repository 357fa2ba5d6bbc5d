package parallel

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestDeadNodesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dead-nodes.json")
	dead, err := ReadDeadNodes(path)
	if err != nil || len(dead) != 0 {
		t.Fatalf("before any write: %v, %v; want none", dead, err)
	}
	if err := WriteDeadNodes(path, map[string]error{"node-0": errors.New("signal: killed")}); err != nil {
		t.Fatal(err)
	}
	dead, err = ReadDeadNodes(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(dead) != 1 || dead["node-0"] == nil || dead["node-0"].Error() != "signal: killed" {
		t.Fatalf("read back %v", dead)
	}
}
