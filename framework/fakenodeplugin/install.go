package fakenodeplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// Installed is a fake plugin in a node's plugin directory.
type Installed struct {
	Plugin  Plugin
	entry   string
	state   string
	journal string
	proc    Server
}

// Server is a fake plugin's server: a process of the harness's own binary.
type Server interface {
	// ExitError is why the server ended; nil while it runs.
	ExitError() error
	// Stop ends the server (a signal, then a kill after grace) and reaps it.
	Stop(grace time.Duration) error
}

// ServerSpec is what starting a fake plugin's server takes.
type ServerSpec struct {
	// Name names the server in errors and leads its output lines.
	Name string
	// Config is the configuration file the server's RunChild reads.
	Config string
	// Elsewhere, if set, makes the command line that runs the server in a
	// node's container from the environment and arguments it would have
	// here (cluster.NodeExec.Argv); nil runs it on this host.
	Elsewhere func(env []string, args ...string) []string
	// Log receives the server's output.
	Log io.Writer
}

// StartServer starts a fake plugin's server: the harness's own binary
// again, in the child role Role, which runs RunChild on the configuration.
// The harness sets it when its binary starts (every binary whose main is
// conformance.Main has it); specs never call it, Install does, and fails
// while it is nil.
var StartServer func(ServerSpec) (Server, error)

// Location is where a node's plugins go.
type Location struct {
	// PluginDir is the host's plugin directory; StateDir is free for the
	// fakes' journals and shell plugins' calls.
	PluginDir, StateDir string
	// Exec, if set, runs the servers inside the node's container, where the
	// two directories have the same paths as here; nil runs them here.
	Exec *cluster.NodeExec
}

// Install puts p into at.PluginDir (keeping its journal under
// at.StateDir), starts its server (for a shell plugin, the one its shim
// script calls) and waits up to timeout until it listens.
// log receives a server's output.
func Install(ctx context.Context, at Location, p Plugin, log io.Writer, timeout, poll time.Duration) (_ *Installed, err error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	i := &Installed{Plugin: p, entry: filepath.Join(at.PluginDir, p.Name), state: filepath.Join(at.StateDir, p.Name)}
	i.journal = journalDir(at.StateDir, p.Name)
	if _, err := os.Lstat(i.entry); err == nil {
		return nil, fmt.Errorf("plugin %s is already installed in %s", p.Name, at.PluginDir)
	}
	if err := os.MkdirAll(i.journal, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = i.Remove()
		}
	}()
	c := childConfig{Plugin: p, Entry: i.entry, Journal: i.journal, Ready: filepath.Join(i.state, "ready")}
	if p.Type == nodeadmission.PluginTypeShell {
		c.Requests, c.Calls = filepath.Join(i.state, "requests"), filepath.Join(i.state, "calls")
		if err := os.MkdirAll(c.Calls, 0o755); err != nil {
			return nil, err
		}
		if err := syscall.Mkfifo(c.Requests, 0o600); err != nil {
			return nil, fmt.Errorf("fake shell plugin %s: request FIFO: %w", p.Name, err)
		}
	}
	config := filepath.Join(i.state, "plugin.json")
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(config, data, 0o644); err != nil {
		return nil, err
	}
	if StartServer == nil {
		return nil, errors.New("fake node plugins: no StartServer in this binary (its main is not conformance.Main)")
	}
	spec := ServerSpec{Name: "plugin " + p.Name, Config: config, Log: log}
	if at.Exec != nil {
		spec.Elsewhere = at.Exec.Argv
	}
	proc, err := StartServer(spec)
	if err != nil {
		return nil, err
	}
	i.proc = proc
	err = wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(context.Context) (bool, error) {
		if err := i.proc.ExitError(); err != nil {
			return false, err
		}
		_, err := os.Stat(c.Ready)
		return err == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("fake %s plugin %s did not start listening: %w", p.Type, p.Name, err)
	}
	if p.Type == nodeadmission.PluginTypeShell {
		// The shim goes into the plugin dir last, once its server reads.
		script, err := shellScript(c)
		if err != nil {
			return nil, err
		}
		return i, atomicfile.Write(i.entry, script, 0o755)
	}
	return i, nil
}

// Journal returns the plugin's invocations in the order they arrived.
func (i *Installed) Journal() ([]Invocation, error) { return readJournal(i.journal) }

// Remove stops a server plugin, waits until it is reaped, and removes the
// plugin's entry and state. It is safe to call twice.
func (i *Installed) Remove() error {
	var errs []error
	if i.proc != nil {
		errs = append(errs, i.proc.Stop(2*time.Second))
	}
	if err := os.Remove(i.entry); err != nil && !os.IsNotExist(err) {
		errs = append(errs, err)
	}
	errs = append(errs, os.RemoveAll(i.state))
	return errors.Join(errs...)
}
