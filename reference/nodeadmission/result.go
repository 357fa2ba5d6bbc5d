package nodeadmission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// AdmitResult is a plugin's answer (seed 004), and the host's decision.
type AdmitResult struct {
	Admit   bool   `json:"admit"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// The Reasons the host rejects a pod with when a plugin gives no valid
// answer (fail closed). Each message names the plugin.
const (
	// ReasonPluginTimeout: the plugin did not answer within the host's
	// timeout.
	ReasonPluginTimeout = "AdmissionPluginTimeout"
	// ReasonPluginFailed: the plugin crashed, exited non-zero, or could not
	// be reached.
	ReasonPluginFailed = "AdmissionPluginFailed"
	// ReasonPluginInvalidResponse: the plugin answered something that is not
	// an AdmitResult (or a rejection without a Reason).
	ReasonPluginInvalidResponse = "AdmissionPluginInvalidResponse"
	// ReasonPluginNotFound: a configured plugin is missing from the plugin
	// directory, or is the wrong kind of file for its type.
	ReasonPluginNotFound = "AdmissionPluginNotFound"
	// ReasonConfigInvalid: the configuration file cannot be read or is
	// invalid.
	ReasonConfigInvalid = "AdmissionPluginConfigInvalid"
)

// decodeResult parses one AdmitResult JSON object and nothing else.
func decodeResult(data []byte) (AdmitResult, error) {
	var r AdmitResult
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("answer is not an AdmitResult: %v", err)
	}
	if dec.More() {
		return r, errors.New("answer has data after the AdmitResult")
	}
	return r, checkResult(r)
}

// checkResult rejects answers the host cannot pass on: a rejection must say
// why, since the Reason is what the pod's status and event carry.
func checkResult(r AdmitResult) error {
	if !r.Admit && r.Reason == "" {
		return errors.New("rejection without a reason")
	}
	return nil
}
