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
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// Installed is a fake plugin in a node's plugin directory.
type Installed struct {
	Plugin  Plugin
	entry   string
	state   string
	journal string
	proc    *childproc.Process
}

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
	spec := childproc.Spec{Name: "plugin " + p.Name, Role: Role, Config: config, Log: log, Prefix: "plugin " + p.Name + ": "}
	if at.Exec != nil {
		spec.Elsewhere = at.Exec.Argv
	}
	i.proc, err = childproc.Start(spec)
	if err != nil {
		return nil, err
	}
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
