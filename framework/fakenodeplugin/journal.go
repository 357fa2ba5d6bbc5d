package fakenodeplugin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// Invocation is one call a fake plugin got.
type Invocation struct {
	Plugin string                   `json:"plugin"`
	Type   nodeadmission.PluginType `json:"type"`
	// Pod is exactly what the host sent.
	Pod json.RawMessage `json:"pod"`
	// ReceivedNanos and AnsweredNanos are CLOCK_MONOTONIC readings, which
	// (unlike time.Time's monotonic part) compare across processes.
	// AnsweredNanos is 0 when the plugin did not answer.
	ReceivedNanos int64 `json:"receivedNanos"`
	AnsweredNanos int64 `json:"answeredNanos,omitempty"`
	PID           int   `json:"pid"`
}

// Answered reports whether the plugin sent an answer.
func (i Invocation) Answered() bool { return i.AnsweredNanos != 0 }

// MonotonicNow reads CLOCK_MONOTONIC, comparable with Invocation times.
func MonotonicNow() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// journalDir holds one plugin's invocations.
func journalDir(stateDir, plugin string) string { return filepath.Join(stateDir, plugin, "journal") }

// record writes inv atomically under dir, keyed by its receipt time and pid,
// so the record made on receipt is replaced by the one made on answer.
func record(dir string, inv Invocation) error {
	data, err := json.Marshal(inv)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%020d-%d.json", inv.ReceivedNanos, inv.PID)
	return atomicfile.Write(filepath.Join(dir, name), data, 0o644)
}

// readJournal returns a plugin's invocations in the order they arrived.
func readJournal(dir string) ([]Invocation, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Invocation
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var inv Invocation
		if err := json.Unmarshal(data, &inv); err != nil {
			return nil, fmt.Errorf("journal entry %s: %w", e.Name(), err)
		}
		out = append(out, inv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ReceivedNanos < out[j].ReceivedNanos })
	return out, nil
}
