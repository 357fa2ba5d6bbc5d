package runconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
)

// A parallel run's workers and an in-cluster run's pod are runs of this
// binary that another run (their parent) starts. Each takes one input, an
// options file its parent writes (Encode, WriteChild: `run --options
// FILE`): the parent's Config narrowed for the child, plus the child's
// role, the child section. Only a parent writes that section: a run takes
// it only from its parent (CheckFromParent), and refuses it, one line and
// exit 2, in any other options file.

// ChildSection names the options file's section only a parent writes.
const ChildSection = "child"

// Child is the role of a run another run started: one of its fields is
// set.
type Child struct {
	Worker *WorkerRole `json:"worker,omitempty"`
	Pod    *PodRole    `json:"pod,omitempty"`
	Plane  *PlaneRole  `json:"plane,omitempty"`
}

// WorkerRole makes a run a worker of a parallel run (the engine's
// worker.go).
type WorkerRole struct {
	// ParentPID is the parallel run's process, which started the worker.
	ParentPID int `json:"parentPID"`
	// Attach is the file describing the parent's cluster
	// (internal/parallel.Attach).
	Attach string `json:"attach"`
	// NodeSlot is the node the worker's spec holds
	// (internal/parallel.Unit.NodeSlot).
	NodeSlot int `json:"nodeSlot,omitempty"`
	// Repetition is the repetition of a run with --repeat the worker runs
	// (1-based; 0: not repeated).
	Repetition int `json:"repetition,omitempty"`
}

// PlaneRole makes a run a parallel run's propagation plane (the engine's
// plane.go): a second embedded control plane of the same build and
// options, for the specs that measure how fast configuration changes are
// enforced. It boots the control plane, writes Attach (with SharedDir, the
// plane's own quiet gate) for the workers of those specs, and serves until
// its parent stops it or dies.
type PlaneRole struct {
	ParentPID int    `json:"parentPID"`
	Attach    string `json:"attach"`
	SharedDir string `json:"sharedDir"`
}

// PodRole makes a run an in-cluster run's pod: a kubeconfig-provider run
// with the pod's in-cluster credentials, serving its fake webhooks behind
// the run's Service and publishing its reports to the run's namespace
// (internal/clusterrun.PodRole).
type PodRole struct {
	RunID            string   `json:"runID"`
	WebhookListen    string   `json:"webhookListen"`
	WebhookAdvertise string   `json:"webhookAdvertise"`
	WebhookNames     []string `json:"webhookNames,omitempty"`
	PublishResults   string   `json:"publishResults"`
}

// Worker is the run's worker role; nil unless it is a parallel run's
// worker.
func (o *Config) Worker() *WorkerRole {
	if o.Child == nil {
		return nil
	}
	return o.Child.Worker
}

// Plane is the run's propagation plane role; nil unless it is one.
func (o *Config) Plane() *PlaneRole {
	if o.Child == nil {
		return nil
	}
	return o.Child.Plane
}

// Pod is the run's pod role; nil unless it is an in-cluster run's pod.
func (o *Config) Pod() *PodRole {
	if o.Child == nil {
		return nil
	}
	return o.Child.Pod
}

// RunID is the in-cluster run's ID the pod runs under; "" elsewhere (the
// harness makes one).
func (o *Config) RunID() string {
	if p := o.Pod(); p != nil {
		return p.RunID
	}
	return ""
}

// Encode is a child's options file: c as YAML, which Decode reads back
// whole.
func Encode(c Config) ([]byte, error) {
	data, err := json.Marshal(c)
	if err == nil {
		data, err = yaml.JSONToYAML(escapeUnprintable(data))
	}
	if err != nil {
		return nil, fmt.Errorf("encode the run options: %w", err)
	}
	return data, nil
}

// escapeUnprintable writes as \u escapes the characters of JSON text that
// YAML refuses to read raw (DEL, the C1 controls, a byte order mark) or
// reads as a line break (NEL, U+0085, folded to a space in a string):
// yaml.Marshal goes through JSON, whose encoder leaves them raw, and then
// fails on them, so a --focus holding one (make fuzz found "\x7f") could
// not be handed to a worker. JSON's own structure is ASCII, so they can
// only be inside strings, where an escape means the same.
func escapeUnprintable(data []byte) []byte {
	if !bytes.ContainsFunc(data, unprintableInYAML) {
		return data
	}
	var out bytes.Buffer
	for _, r := range string(data) {
		if unprintableInYAML(r) {
			fmt.Fprintf(&out, "\\u%04x", r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}

// unprintableInYAML says whether r is outside YAML's printable set (YAML
// 1.2, 5.1), a byte order mark or NEL. JSON escapes the C0 controls and
// U+2028 and U+2029 itself.
func unprintableInYAML(r rune) bool {
	return (r >= 0x7f && r <= 0x9f) || r == 0xfeff || r == 0xfffe || r == 0xffff
}

// WriteChild writes a child's options file, readable by the owner only
// (a worker's names the attach file, which holds credentials).
func WriteChild(path string, c Config) error {
	data, err := Encode(c)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// validateChild checks that the child section describes one role, whole.
func (o *Config) validateChild() error {
	if o.Child == nil {
		return nil
	}
	w, p, pl := o.Child.Worker, o.Child.Pod, o.Child.Plane
	roles := 0
	for _, set := range []bool{w != nil, p != nil, pl != nil} {
		if set {
			roles++
		}
	}
	switch {
	case roles != 1:
		return exitcode.Usagef("%s: give one of worker, pod and plane", ChildSection)
	case pl != nil:
		if pl.Attach == "" || pl.SharedDir == "" || o.InCluster || o.Provider != embedded.Name {
			return exitcode.Usagef("%s.plane needs attach and sharedDir, and runs the embedded provider here", ChildSection)
		}
		return nil
	case w != nil:
		if w.Attach == "" || o.InCluster {
			return exitcode.Usagef("%s.worker needs attach, and a worker runs here, not with inCluster", ChildSection)
		}
		if w.NodeSlot < 0 || w.Repetition < 0 {
			return exitcode.Usagef("%s.worker: nodeSlot and repetition are 0 or more, got %d and %d", ChildSection, w.NodeSlot, w.Repetition)
		}
		return nil
	}
	return o.validatePod()
}

// CheckFromParent refuses a child section that is not the parent's: with
// flags beside it (a child's one input is its file), a worker's that the
// process that started this one did not write, a pod's outside the pod.
// A user's options file never holds one.
func (o *Config) CheckFromParent(otherFlags bool) error {
	return o.checkFromParent(otherFlags, podNamespaceFile)
}

// checkFromParent is CheckFromParent reading the pod's namespace from
// namespaceFile.
func (o *Config) checkFromParent(otherFlags bool, namespaceFile string) error {
	if o.Child == nil {
		return nil
	}
	if otherFlags {
		return exitcode.Usagef("options file: %s is written by a run for the run it starts, whose one input the file is: give no flag with it", ChildSection)
	}
	if w := o.Worker(); w != nil && w.ParentPID != os.Getppid() {
		return exitcode.Usagef("options file: %s.worker is a parallel run's worker's own, written by the run that starts it (process %d, not this one's parent)",
			ChildSection, w.ParentPID)
	}
	if p := o.Plane(); p != nil && p.ParentPID != os.Getppid() {
		return exitcode.Usagef("options file: %s.plane is a parallel run's propagation plane's own, written by the run that starts it (process %d, not this one's parent)",
			ChildSection, p.ParentPID)
	}
	if p := o.Pod(); p != nil {
		ns, err := os.ReadFile(namespaceFile)
		// Its own namespace, or the user's service account's: where it
		// publishes its results either way.
		if want := p.PublishResults; err != nil || string(ns) != want {
			return exitcode.Usagef("options file: %s.pod is the in-cluster pod's own, which runs in namespace %s (this process does not)", ChildSection, want)
		}
	}
	return nil
}

// podNamespaceFile is where a pod reads the namespace it runs in (its
// service account's).
const podNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
