package kind

import (
	"fmt"

	"github.com/go-logr/logr"
	kindlog "sigs.k8s.io/kind/pkg/log"
)

// kindLogger hands kind's log lines to the injected logr.Logger: kind's V(0)
// status lines at V(1), its debug levels below that.
type kindLogger struct{ l logr.Logger }

func (k kindLogger) Warn(msg string)                   { k.l.Info("kind: " + msg) }
func (k kindLogger) Warnf(format string, args ...any)  { k.Warn(fmt.Sprintf(format, args...)) }
func (k kindLogger) Error(msg string)                  { k.l.Error(nil, "kind: "+msg) }
func (k kindLogger) Errorf(format string, args ...any) { k.Error(fmt.Sprintf(format, args...)) }
func (k kindLogger) V(level kindlog.Level) kindlog.InfoLogger {
	return kindInfo{k.l.V(int(level) + 1)}
}

type kindInfo struct{ l logr.Logger }

func (i kindInfo) Info(msg string)                  { i.l.Info("kind: " + msg) }
func (i kindInfo) Infof(format string, args ...any) { i.Info(fmt.Sprintf(format, args...)) }
func (i kindInfo) Enabled() bool                    { return i.l.Enabled() }
