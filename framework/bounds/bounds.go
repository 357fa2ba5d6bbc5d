// Package bounds holds every wait and every bound the harness uses, in one
// struct with defaults that an options file and flags can override. Specs take
// a copy at the start, so a spec never sees a value change under it.
package bounds

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Duration is a time.Duration written as "1s", "250ms" in files and flags.
type Duration struct{ time.Duration }

// D is shorthand for Duration{d}.
func D(d time.Duration) Duration { return Duration{d} }

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"1s\" or \"250ms\", got %s", b)
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as \"1s\" or \"250ms\"", s)
	}
	d.Duration = parsed
	return nil
}

// Bounds are the harness's waits (how long to wait for setup) and the
// contract bounds specs assert (how long the implementation may take).
type Bounds struct {
	// Contract bounds: exceeding one fails a spec.

	// WebhookConfigPropagation bounds the time from a webhook configuration
	// change to its enforcement on every apiserver (seed 002: "a change becomes
	// effective in 1s").
	WebhookConfigPropagation Duration `json:"webhookConfigPropagation"`
	// PolicyPropagation bounds the same for admission policies and bindings
	// (upstream recompiles policies every second).
	PolicyPropagation Duration `json:"policyPropagation"`
	// StaticManifestReload bounds the time from a static manifest file
	// appearing, changing or disappearing in an apiserver's
	// staticManifestsDir to its enforcement on that apiserver. Upstream
	// reloads on a filesystem notification (a few milliseconds) and polls
	// every 60 s where notifications fail; the bound expects notifications.
	StaticManifestReload Duration `json:"staticManifestReload"`
	// TimingSlack is how much later than its nominal time a timed behaviour
	// (a webhook timeout, an initializer timeout) may complete.
	TimingSlack Duration `json:"timingSlack"`
	// NodeAdmission bounds the time from creating a pod bound to a node to
	// the node's admission decision showing in the pod's status (rejected:
	// phase Failed; admitted: phase Running). No seed sets a number; a warm
	// kubelet decides in milliseconds, so this only catches a node that
	// stalls.
	NodeAdmission Duration `json:"nodeAdmission"`
	// PodBinding bounds the time from removing a pod's last scheduling
	// gate to the scheduler binding it. No seed sets a number; a scheduler
	// requeues an ungated pod at once and binds it in milliseconds.
	PodBinding Duration `json:"podBinding"`
	// InitializerConfigPropagation bounds the time from an
	// InitializerConfiguration change to the initializers assigned to new
	// pods following it (seed 002: a consistent read every 1s, "we only
	// guarantee a change becomes effective in 1s"). TimingSlack is added.
	InitializerConfigPropagation Duration `json:"initializerConfigPropagation"`
	// InitializerLoadingBlock is how long after the last successful read of
	// the initializer configurations creations are blocked (seed 002: "If
	// there isn't any successful read in the last 5s, [...] block all
	// incoming request"). TimingSlack is added.
	InitializerLoadingBlock Duration `json:"initializerLoadingBlock"`
	// InitializerGlobalTimeout is the global initializer timeout the harness
	// gives the reference implementation, and the age after which its read
	// repair must have removed a pod's head initializer (seed 002: "if a
	// global initializer timeout (e.g., 10 mins) has reached, [...] removes
	// the first initializer"; shortened so a spec can wait it out). It must
	// exceed the time any other reference spec holds a pod.
	InitializerGlobalTimeout Duration `json:"initializerGlobalTimeout"`
	// InitializerRepairInterval is the gap between two read-repair sweeps
	// the harness gives the reference implementation; a repair may come
	// that much, plus a second of creationTimestamp truncation and
	// TimingSlack, after InitializerGlobalTimeout.
	InitializerRepairInterval Duration `json:"initializerRepairInterval"`

	// Harness waits: exceeding one is a setup failure, not a contract failure.

	// ClusterStart is how long a provider may take to bring a cluster up.
	ClusterStart Duration `json:"clusterStart"`
	// ClusterStop is how long tear-down may take.
	ClusterStop Duration `json:"clusterStop"`
	// WebhookReady is how long to wait for a newly registered fake webhook to
	// be called at all (setup, not the propagation contract).
	WebhookReady Duration `json:"webhookReady"`
	// ObjectState is how long to wait for an object to reach a state.
	ObjectState Duration `json:"objectState"`
	// SchedulingGateHold is how long a gated pod is watched to stay unbound
	// while an ungated twin is bound (an observation window).
	SchedulingGateHold Duration `json:"schedulingGateHold"`
	// PollInterval is the gap between two probes of anything polled.
	PollInterval Duration `json:"pollInterval"`
	// Spec is the timeout of one spec.
	Spec Duration `json:"spec"`
	// Cleanup is how long the end-of-run sweep may wait for deletions.
	Cleanup Duration `json:"cleanup"`
	// InterruptStop is how long a command (run, in any phase; an in-cluster
	// run's client; matrix; cleanup) may take from the first SIGINT, SIGTERM
	// or SIGHUP to its exit, having stopped in order: start-up rolled back,
	// specs stopped with their cleanups, the cluster stopped, the reports
	// written. A command still stopping then says so (the third signal exits
	// at once); the harness's own tests hold every phase to it.
	InterruptStop Duration `json:"interruptStop"`

	// Report thresholds: they change what a report says, never an outcome.

	// HarnessStarved is how late the harness's own wake-ups (a 20ms tick,
	// internal/lateness) may come during a case before its failure says the
	// machine was busy: a timing bound missed then may say more about the
	// machine than about the implementation.
	HarnessStarved Duration `json:"harnessStarved"`
}

// Defaults returns the bounds used when nothing overrides them.
func Defaults() Bounds {
	return Bounds{
		WebhookConfigPropagation:     D(time.Second),
		PolicyPropagation:            D(2 * time.Second),
		StaticManifestReload:         D(2 * time.Second),
		TimingSlack:                  D(500 * time.Millisecond),
		NodeAdmission:                D(2 * time.Second),
		PodBinding:                   D(2 * time.Second),
		InitializerConfigPropagation: D(time.Second),
		InitializerLoadingBlock:      D(5 * time.Second),
		InitializerGlobalTimeout:     D(10 * time.Second),
		InitializerRepairInterval:    D(time.Second),
		ClusterStart:                 D(3 * time.Minute),
		ClusterStop:                  D(time.Minute),
		WebhookReady:                 D(30 * time.Second),
		ObjectState:                  D(30 * time.Second),
		SchedulingGateHold:           D(2 * time.Second),
		PollInterval:                 D(20 * time.Millisecond),
		Spec:                         D(3 * time.Minute),
		Cleanup:                      D(time.Minute),
		InterruptStop:                D(20 * time.Second),
		HarnessStarved:               D(100 * time.Millisecond),
	}
}

// Keys returns the names accepted by Set, sorted.
func Keys() []string {
	t := reflect.TypeOf(Bounds{})
	keys := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		keys = append(keys, jsonName(t.Field(i)))
	}
	sort.Strings(keys)
	return keys
}

// Set overrides one bound from "name=duration" (the --bound flag).
func (b *Bounds) Set(assignment string) error {
	key, value, ok := strings.Cut(assignment, "=")
	if !ok {
		return fmt.Errorf("--bound takes name=duration (for example webhookConfigPropagation=2s), got %q", assignment)
	}
	v := reflect.ValueOf(b).Elem()
	for i := 0; i < v.NumField(); i++ {
		if jsonName(v.Type().Field(i)) != key {
			continue
		}
		d, err := time.ParseDuration(value)
		if err != nil {
			return fmt.Errorf("--bound %s: %q is not a duration such as 1s or 250ms", key, value)
		}
		v.Field(i).Set(reflect.ValueOf(D(d)))
		return nil
	}
	return fmt.Errorf("--bound: unknown bound %q: use one of %s", key, strings.Join(Keys(), ", "))
}

// Validate rejects bounds that cannot be meant: zero or negative durations.
func (b Bounds) Validate() error {
	v := reflect.ValueOf(b)
	for i := 0; i < v.NumField(); i++ {
		if d := v.Field(i).Interface().(Duration); d.Duration <= 0 {
			return fmt.Errorf("bound %s must be positive, got %s", jsonName(v.Type().Field(i)), d)
		}
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
