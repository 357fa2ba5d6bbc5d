package fakenodeplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

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

// Install puts p into pluginDir (keeping its journal under stateDir) and,
// for a server type, starts it and waits up to timeout until it listens.
// log receives a server's output.
func Install(ctx context.Context, pluginDir, stateDir string, p Plugin, log io.Writer, timeout, poll time.Duration) (_ *Installed, err error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	i := &Installed{Plugin: p, entry: filepath.Join(pluginDir, p.Name), state: filepath.Join(stateDir, p.Name)}
	i.journal = journalDir(stateDir, p.Name)
	if _, err := os.Lstat(i.entry); err == nil {
		return nil, fmt.Errorf("plugin %s is already installed in %s", p.Name, pluginDir)
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
	config := filepath.Join(i.state, "plugin.json")
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(config, data, 0o644); err != nil {
		return nil, err
	}
	if p.Type == nodeadmission.PluginTypeShell {
		script, err := shellScript(config)
		if err != nil {
			return nil, err
		}
		return i, writeAtomically(i.entry, script, 0o755)
	}
	i.proc, err = childproc.Start(childproc.Spec{Name: "plugin " + p.Name, Role: Role, Config: config, Log: log, Prefix: "plugin " + p.Name + ": "})
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
	return i, nil
}

// shellScript re-executes this binary as the fake plugin.
func shellScript(config string) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	for _, s := range []string{exe, config} {
		if strings.ContainsAny(s, "'\n") {
			return nil, fmt.Errorf("path %q cannot be quoted for a shell script", s)
		}
	}
	return []byte(fmt.Sprintf(`#!/bin/sh
# A fake KEP-2823 node admission plugin of admission-conformance.
export %s=%s %s='%s'
exec '%s' -admission-conformance-child=%s
`, childproc.RoleEnv, Role, childproc.ConfigEnv, config, exe, Role)), nil
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
