package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestOptionsFileIsOverriddenByFlagsOnly(t *testing.T) {
	file := filepath.Join(t.TempDir(), "options.yaml")
	if err := os.WriteFile(file, []byte(`
suites: [ordering]
profiles: [core]
apiservers: 3
apiserverArgs: ["--v=2"]
reportDir: from-file
bounds:
  timingSlack: 2s
`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := defaultRunOptions()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.addFlags(fs)
	if err := fs.Parse([]string{"--options", file, "--profile", "extended", "--bound", "webhookReady=5s"}); err != nil {
		t.Fatal(err)
	}
	if err := o.load(fs); err != nil {
		t.Fatal(err)
	}
	got := o
	if !reflect.DeepEqual(got.Suites, []string{"ordering"}) || got.APIServers != 3 || got.ReportDir != "from-file" ||
		!reflect.DeepEqual(got.APIServerArgs, []string{"--v=2"}) {
		t.Errorf("file values lost: %+v", got)
	}
	if !reflect.DeepEqual(got.Profiles, []string{"extended"}) {
		t.Errorf("flag did not override the file: profiles %v", got.Profiles)
	}
	if got.Bounds.TimingSlack.Duration != 2*time.Second || got.Bounds.WebhookReady.Duration != 5*time.Second {
		t.Errorf("bounds: slack %s, webhookReady %s", got.Bounds.TimingSlack, got.Bounds.WebhookReady)
	}
	if got.Bounds.WebhookConfigPropagation.Duration != time.Second {
		t.Errorf("an unset bound lost its default: %s", got.Bounds.WebhookConfigPropagation)
	}
}
