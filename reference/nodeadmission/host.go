package nodeadmission

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
)

// DefaultTimeout bounds each plugin call when the host is not told
// otherwise.
const DefaultTimeout = 3 * time.Second

// Host is the plugin host of one node.
type Host struct {
	// ConfigDir holds the configuration file; PluginDir the plugins.
	ConfigDir, PluginDir string
	// Timeout bounds each plugin's answer.
	Timeout time.Duration
	// FailOpen admits a pod when a plugin gives no valid answer. It breaks
	// the seed's contract on purpose: the harness's own tests use it to show
	// that the fail-closed specs fail against such a host.
	FailOpen bool
	// RejectLate holds every rejection for the plugin timeout before the
	// pod is rejected, as a host that waits out its plugins' timeouts
	// before it acts on an answer would. It breaks the node's promptness on
	// purpose, for the harness's own tests of the rejection bounds.
	RejectLate bool
	// IgnoreRejections admits a pod that a plugin rejects itself (failures
	// still reject). It breaks the contract on purpose, for the harness's
	// own tests that the rejection specs fail against such a host on a real
	// node.
	IgnoreRejections bool
	Logger           logr.Logger
}

// Admit decides on pod: it asks every configured plugin at once and waits
// for all of them (each bounded by Timeout).
func (h *Host) Admit(ctx context.Context, pod *corev1.Pod) AdmitResult {
	cfg, path, err := LoadConfig(h.ConfigDir)
	if errors.Is(err, errNoConfig) {
		return AdmitResult{Admit: true}
	}
	if err != nil {
		return h.decide(AdmitResult{Reason: ReasonConfigInvalid,
			Message: oneLine(fmt.Sprintf("admission plugin configuration %s: %v", path, err))}, true)
	}
	if len(cfg.Plugins) == 0 {
		return AdmitResult{Admit: true}
	}
	encoded, err := EncodePod(pod)
	if err != nil {
		return h.decide(AdmitResult{Reason: ReasonPluginFailed, Message: "cannot encode the pod for admission plugins: " + err.Error()}, true)
	}
	timeout := h.EffectiveTimeout()
	answers := make([]AdmitResult, len(cfg.Plugins))
	failures := make([]bool, len(cfg.Plugins))
	var wg sync.WaitGroup
	for i, p := range cfg.Plugins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], failures[i] = h.call(ctx, p, encoded, timeout)
		}()
	}
	wg.Wait()
	for i, a := range answers {
		if !a.Admit {
			h.log().V(2).Info("pod rejected by admission plugin", "pod", pod.Namespace+"/"+pod.Name,
				"plugin", cfg.Plugins[i].Name, "reason", a.Reason, "message", a.Message, "failure", failures[i])
			if d := h.decide(a, failures[i]); !d.Admit {
				if h.RejectLate {
					h.holdFor(ctx, timeout)
				}
				return d
			}
		}
	}
	return AdmitResult{Admit: true}
}

// EffectiveTimeout is how long the host waits for each plugin.
func (h *Host) EffectiveTimeout() time.Duration {
	if h.Timeout <= 0 {
		return DefaultTimeout
	}
	return h.Timeout
}

// call asks one plugin; failure says the answer is the host's own
// (fail-closed) rather than the plugin's.
func (h *Host) call(ctx context.Context, p *AdmissionPlugin, pod []byte, timeout time.Duration) (_ AdmitResult, failure bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	invoke, err := discover(h.PluginDir, p)
	if err != nil {
		return rejection(ctx, p, err), true
	}
	started := time.Now()
	r, err := invoke(ctx, pod)
	h.log().V(4).Info("admission plugin answered", "plugin", p.Name, "type", p.Type, "elapsed", time.Since(started), "err", err)
	if err != nil {
		return rejection(ctx, p, err), true
	}
	return r, false
}

// decide applies the failure policy: failures reject unless FailOpen.
func (h *Host) decide(r AdmitResult, failure bool) AdmitResult {
	if failure && h.FailOpen || !failure && h.IgnoreRejections {
		return AdmitResult{Admit: true}
	}
	return r
}

// holdFor waits d, or until ctx ends.
func (h *Host) holdFor(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func (h *Host) log() logr.Logger {
	if h.Logger.GetSink() == nil {
		return logr.Discard()
	}
	return h.Logger
}
