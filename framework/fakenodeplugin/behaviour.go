package fakenodeplugin

import (
	"encoding/json"
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// Action is what a fake plugin does with a pod.
type Action string

const (
	// Admit answers {"admit": true}.
	Admit Action = "admit"
	// Reject answers a rejection with Behaviour.Reason and Message.
	Reject Action = "reject"
	// Crash kills the plugin's own process (SIGKILL) without answering.
	Crash Action = "crash"
	// Garbage answers bytes that are not an AdmitResult.
	Garbage Action = "garbage"
	// Exit ends the plugin's process with Behaviour.ExitCode (non-zero)
	// without answering.
	Exit Action = "exit"
)

// Behaviour is how a fake plugin answers every pod.
type Behaviour struct {
	Action  Action `json:"action"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Delay comes before the action, e.g. a slow admit or a hang.
	Delay    bounds.Duration `json:"delay,omitempty"`
	ExitCode int             `json:"exitCode,omitempty"`
	// Match, if set, limits the behaviour to pods carrying all these labels;
	// the plugin admits every other pod at once. Specs use it to let control
	// pods through a plugin that rejects, crashes or hangs.
	Match map[string]string `json:"match,omitempty"`
}

// For returns what the plugin does with pod (raw JSON as sent by the host).
func (b Behaviour) For(pod []byte) Behaviour {
	if len(b.Match) == 0 {
		return b
	}
	var p struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(pod, &p); err == nil {
		for k, v := range b.Match {
			if p.Metadata.Labels[k] != v {
				return Behaviour{Action: Admit}
			}
		}
	}
	return b
}

// Plugin is one fake plugin to install.
type Plugin struct {
	Name      string                   `json:"name"`
	Type      nodeadmission.PluginType `json:"type"`
	Behaviour Behaviour                `json:"behaviour"`
}

// Validate rejects plugins the fake cannot play.
func (p Plugin) Validate() error {
	cfg := nodeadmission.PluginConfig{Plugins: []*nodeadmission.AdmissionPlugin{{Name: p.Name, Type: p.Type}}}
	if err := cfg.Validate(); err != nil {
		return err
	}
	switch p.Behaviour.Action {
	case Admit, Crash, Garbage:
	case Reject:
		if p.Behaviour.Reason == "" {
			return fmt.Errorf("plugin %s: a rejection needs a reason", p.Name)
		}
	case Exit:
		if p.Behaviour.ExitCode == 0 {
			return fmt.Errorf("plugin %s: exit needs a non-zero exit code", p.Name)
		}
	default:
		return fmt.Errorf("plugin %s: unknown action %q", p.Name, p.Behaviour.Action)
	}
	return nil
}

// answer is the AdmitResult a behaviour sends (Admit and Reject only).
func (b Behaviour) answer() nodeadmission.AdmitResult {
	if b.Action == Admit {
		return nodeadmission.AdmitResult{Admit: true}
	}
	return nodeadmission.AdmitResult{Reason: b.Reason, Message: b.Message}
}

// garbage is what a plugin told to answer garbage sends: not JSON, and not
// a protobuf message either (field 15 with the invalid wire type 7).
var garbage = []byte{0x7f, 0xff, 'n', 'o', 't', ' ', 'a', 'n', ' ', 'A', 'd', 'm', 'i', 't', 'R', 'e', 's', 'u', 'l', 't'}
