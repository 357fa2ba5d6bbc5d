package fakenodeplugin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// TestMain plays the fake plugin when this test binary is re-executed as one.
func TestMain(m *testing.M) {
	if role, config, ok := childproc.Take(); ok {
		if role != fakenodeplugin.Role {
			fmt.Fprintf(os.Stderr, "unexpected role %s\n", role)
			os.Exit(1)
		}
		if err := fakenodeplugin.RunChild(childproc.ParentGone(), config); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// What the harness's binary does (internal/nodeset).
	fakenodeplugin.StartServer = func(s fakenodeplugin.ServerSpec) (fakenodeplugin.Server, error) {
		p, err := childproc.Start(childproc.Spec{Name: s.Name, Role: fakenodeplugin.Role, Config: s.Config, Log: s.Log,
			Prefix: s.Name + ": ", Elsewhere: s.Elsewhere})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	os.Exit(m.Run())
}

const hostTimeout = time.Second

func pod(labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1", Labels: labels},
		Spec: corev1.PodSpec{NodeName: "n", Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
}

func TestFakePluginsBehaveAsToldThroughTheReferenceHost(t *testing.T) {
	types := []nodeadmission.PluginType{nodeadmission.PluginTypeShell, nodeadmission.PluginTypeGRPC, nodeadmission.PluginTypeSocket}
	cases := []struct {
		name      string
		behaviour fakenodeplugin.Behaviour
		shellOnly bool
		want      nodeadmission.AdmitResult
		answered  bool
	}{
		{"admit", fakenodeplugin.Behaviour{Action: fakenodeplugin.Admit}, false, nodeadmission.AdmitResult{Admit: true}, true},
		{"reject", fakenodeplugin.Behaviour{Action: fakenodeplugin.Reject, Reason: "Nope", Message: "not here"}, false,
			nodeadmission.AdmitResult{Reason: "Nope", Message: "not here"}, true},
		{"crash", fakenodeplugin.Behaviour{Action: fakenodeplugin.Crash}, false, nodeadmission.AdmitResult{Reason: nodeadmission.ReasonPluginFailed}, false},
		{"garbage", fakenodeplugin.Behaviour{Action: fakenodeplugin.Garbage}, false, nodeadmission.AdmitResult{Reason: nodeadmission.ReasonPluginInvalidResponse}, true},
		{"exit", fakenodeplugin.Behaviour{Action: fakenodeplugin.Exit, ExitCode: 3}, true, nodeadmission.AdmitResult{Reason: nodeadmission.ReasonPluginFailed}, false},
		{"hang", fakenodeplugin.Behaviour{Action: fakenodeplugin.Admit, Delay: bounds.D(10 * time.Second)}, false,
			nodeadmission.AdmitResult{Reason: nodeadmission.ReasonPluginTimeout}, false},
	}
	for _, typ := range types {
		for _, tc := range cases {
			if tc.shellOnly && typ != nodeadmission.PluginTypeShell {
				continue
			}
			t.Run(string(typ)+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				host := &nodeadmission.Host{ConfigDir: filepath.Join(dir, "conf"), PluginDir: filepath.Join(dir, "bin"), Timeout: hostTimeout}
				for _, d := range []string{host.ConfigDir, host.PluginDir} {
					if err := os.Mkdir(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				b := tc.behaviour
				b.Match = map[string]string{"subject": "yes"}
				p := fakenodeplugin.Plugin{Name: "fake", Type: typ, Behaviour: b}
				inst, err := fakenodeplugin.Install(context.Background(), fakenodeplugin.Location{PluginDir: host.PluginDir, StateDir: filepath.Join(dir, "state")}, p, os.Stderr, 10*time.Second, 10*time.Millisecond)
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := inst.Remove(); err != nil {
						t.Error(err)
					}
					if _, err := os.Stat(filepath.Join(host.PluginDir, "fake")); !os.IsNotExist(err) {
						t.Errorf("plugin entry left behind: %v", err)
					}
				}()
				cfg := &nodeadmission.PluginConfig{Plugins: []*nodeadmission.AdmissionPlugin{{Name: "fake", Type: typ}}}
				if err := writeConfig(host.ConfigDir, "c.json", cfg); err != nil {
					t.Fatal(err)
				}
				// A pod the behaviour does not match is admitted at once.
				if got := host.Admit(context.Background(), pod(nil)); !got.Admit {
					t.Fatalf("unmatched pod rejected: %+v", got)
				}
				start := time.Now()
				got := host.Admit(context.Background(), pod(map[string]string{"subject": "yes"}))
				elapsed := time.Since(start)
				if got.Admit != tc.want.Admit || got.Reason != tc.want.Reason || (tc.want.Message != "" && got.Message != tc.want.Message) {
					t.Errorf("got %+v, want %+v", got, tc.want)
				}
				if !got.Admit && tc.want.Message == "" && !strings.Contains(got.Message, `"fake"`) {
					t.Errorf("message %q does not name the plugin", got.Message)
				}
				if tc.name == "hang" && (elapsed < hostTimeout || elapsed > hostTimeout+500*time.Millisecond) {
					t.Errorf("timeout took %s, host timeout %s", elapsed, hostTimeout)
				}
				journal, err := inst.Journal()
				if err != nil {
					t.Fatal(err)
				}
				if len(journal) != 2 {
					t.Fatalf("journal has %d invocations, want 2: %+v", len(journal), journal)
				}
				last := journal[1]
				if !strings.Contains(string(last.Pod), `"subject":"yes"`) || !strings.Contains(string(last.Pod), `"kind":"Pod"`) {
					t.Errorf("journaled pod %s", last.Pod)
				}
				if last.Answered() != tc.answered {
					t.Errorf("answered %t, want %t", last.Answered(), tc.answered)
				}
			})
		}
	}
}

// writeConfig writes a plugin host configuration file.
func writeConfig(dir, name string, cfg *nodeadmission.PluginConfig) error {
	data, err := nodeadmission.EncodeConfig(cfg)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, name), data, 0o600)
}
