package fakenodeplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// Role is the child role of fake plugin processes.
const Role = "node-plugin"

// childConfig is what a fake plugin process is told.
type childConfig struct {
	Plugin Plugin `json:"plugin"`
	// Entry is the plugin's entry in the plugin directory: the socket to
	// listen on, or the file to write the gRPC port into.
	Entry string `json:"entry"`
	// Journal is the directory invocations are recorded in.
	Journal string `json:"journal"`
	// Ready is created once a server listens.
	Ready string `json:"ready"`
	// Requests is a shell plugin's request FIFO, Calls the dir its
	// shim script makes a dir in for each call.
	Requests string `json:"requests,omitempty"`
	Calls    string `json:"calls,omitempty"`
}

// RunChild plays the fake plugin whose configuration is at path: one
// admission for a shell plugin, a server until parentGone ends (the harness
// that started it went away) for the others.
func RunChild(parentGone context.Context, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var c childConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("fake plugin config %s: %w", path, err)
	}
	switch c.Plugin.Type {
	case nodeadmission.PluginTypeShell:
		return serveShell(parentGone, c)
	case nodeadmission.PluginTypeGRPC:
		return serveGRPC(parentGone, c)
	case nodeadmission.PluginTypeSocket:
		return serveSocket(parentGone, c)
	}
	return fmt.Errorf("fake plugin %s: unknown type %q", c.Plugin.Name, c.Plugin.Type)
}

// received journals a pod as it arrives.
func received(c childConfig, pod []byte, pid int) (Invocation, error) {
	inv := Invocation{Plugin: c.Plugin.Name, Type: c.Plugin.Type, Pod: json.RawMessage(pod),
		ReceivedNanos: MonotonicNow(), PID: pid}
	if !json.Valid(pod) {
		// Keep what arrived, as a JSON string, rather than lose it.
		quoted, _ := json.Marshal(string(pod))
		inv.Pod = quoted
	}
	return inv, record(c.Journal, inv)
}

// answered journals that the answer left.
func answered(c childConfig, inv Invocation) error {
	inv.AnsweredNanos = MonotonicNow()
	return record(c.Journal, inv)
}

// die does what Crash and Exit ask: end this process without answering.
func die(b Behaviour) {
	if b.Action == Crash {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		for { // until the signal lands (select{} could end in a deadlock panic first)
			time.Sleep(time.Hour)
		}
	}
	fmt.Fprintf(os.Stderr, "fake plugin exiting with status %d as told\n", b.ExitCode)
	os.Exit(b.ExitCode)
}

// markReady tells the parent a server listens.
func markReady(c childConfig) error {
	return os.WriteFile(c.Ready, []byte(fmt.Sprint(os.Getpid())), 0o644)
}

// orphaned reports whether this process's parent has gone (it was
// reparented), so a sleeping plugin does not outlive the node that ran it.
func orphaned(ppid int) bool { return os.Getppid() != ppid }

// pause waits d, or less if the parent goes or stop closes.
func pause(d time.Duration, stop <-chan struct{}) {
	ppid := os.Getppid()
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 || orphaned(ppid) {
			return
		}
		select {
		case <-stop:
			return
		case <-time.After(min(left, 20*time.Millisecond)):
		}
	}
}
