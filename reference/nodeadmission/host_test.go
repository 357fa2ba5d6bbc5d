package nodeadmission

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/reference/nodeadmission/pluginapi/v1alpha1"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission/unixsock"
)

func newHost(t *testing.T) *Host {
	t.Helper()
	dir := t.TempDir()
	h := &Host{ConfigDir: filepath.Join(dir, "conf"), PluginDir: filepath.Join(dir, "bin"), Timeout: time.Second}
	for _, d := range []string{h.ConfigDir, h.PluginDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func configure(t *testing.T, h *Host, plugins ...*AdmissionPlugin) {
	t.Helper()
	data, err := EncodeConfig(&PluginConfig{Name: "test", Version: "0.1", Plugins: plugins})
	if err != nil {
		t.Fatal(err)
	}
	// Whole or not at all, as the harness writes it: a temporary file
	// renamed into place.
	tmp := filepath.Join(h.ConfigDir, ".plugins.json.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(h.ConfigDir, "plugins.json")); err != nil {
		t.Fatal(err)
	}
}

// shell installs a /bin/sh plugin with the given body.
func shell(t *testing.T, h *Host, name, body string) *AdmissionPlugin {
	t.Helper()
	if err := os.WriteFile(filepath.Join(h.PluginDir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &AdmissionPlugin{Name: name, Type: PluginTypeShell}
}

var testPod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
	Spec: corev1.PodSpec{NodeName: "n", Containers: []corev1.Container{{Name: "c", Image: "i"}}}}

func TestShellPluginAnswers(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		want   AdmitResult
		prefix bool // want.Message is a prefix
	}{
		{"admit", `cat >/dev/null; echo '{"admit":true}'`, AdmitResult{Admit: true}, false},
		{"reject keeps reason and message", `cat >/dev/null; echo '{"admit":false,"reason":"NotOnFargate","message":"no host network"}'`,
			AdmitResult{Reason: "NotOnFargate", Message: "no host network"}, false},
		{"crash", `kill -SEGV $$`, AdmitResult{Reason: ReasonPluginFailed, Message: `admission plugin "x" (shell) crashed`}, true},
		{"non-zero exit", `echo oops >&2; exit 3`, AdmitResult{Reason: ReasonPluginFailed, Message: `admission plugin "x" (shell) exited with status 3; stderr: "oops\n"`}, false},
		{"garbage", `echo 'admit: yes'`, AdmitResult{Reason: ReasonPluginInvalidResponse, Message: `admission plugin "x" (shell) answer is not an AdmitResult`}, true},
		{"reject without reason", `echo '{"admit":false}'`, AdmitResult{Reason: ReasonPluginInvalidResponse, Message: `admission plugin "x" (shell) rejection without a reason`}, true},
		{"timeout", `sleep 30`, AdmitResult{Reason: ReasonPluginTimeout, Message: `admission plugin "x" (shell) did not answer in time`}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			configure(t, h, shell(t, h, "x", tc.body))
			got := h.Admit(context.Background(), testPod)
			if got.Admit != tc.want.Admit || got.Reason != tc.want.Reason ||
				(tc.prefix && !strings.HasPrefix(got.Message, tc.want.Message)) || (!tc.prefix && got.Message != tc.want.Message) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestShellPluginReadsThePod(t *testing.T) {
	h := newHost(t)
	seen := filepath.Join(t.TempDir(), "seen.json")
	configure(t, h, shell(t, h, "x", `cat >`+seen+`; echo '{"admit":true}'`))
	if got := h.Admit(context.Background(), testPod); !got.Admit {
		t.Fatalf("rejected: %+v", got)
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(data, &pod); err != nil || pod.Kind != "Pod" || pod.APIVersion != "v1" || pod.Spec.NodeName != "n" {
		t.Errorf("plugin saw %s (%v)", data, err)
	}
}

func TestPluginsRunInParallelAndTheFirstRejectionInOrderWins(t *testing.T) {
	h := newHost(t)
	configure(t, h,
		shell(t, h, "slow-admit", `sleep 0.4; echo '{"admit":true}'`),
		shell(t, h, "slow-reject", `sleep 0.4; echo '{"admit":false,"reason":"First","message":"m1"}'`),
		shell(t, h, "fast-reject", `echo '{"admit":false,"reason":"Second","message":"m2"}'`))
	start := time.Now()
	got := h.Admit(context.Background(), testPod)
	if elapsed := time.Since(start); elapsed > 700*time.Millisecond {
		t.Errorf("three plugins took %s: not called in parallel", elapsed)
	}
	if got.Admit || got.Reason != "First" || got.Message != "m1" {
		t.Errorf("got %+v, want the first rejection in configuration order", got)
	}
}

func TestConfigurationProblemsFailClosedAndFailOpenAdmits(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, h *Host)
		reason string
	}{
		{"missing plugin", func(t *testing.T, h *Host) {
			configure(t, h, &AdmissionPlugin{Name: "ghost", Type: PluginTypeShell})
		}, ReasonPluginNotFound},
		{"not executable", func(t *testing.T, h *Host) {
			p := shell(t, h, "x", "true")
			if err := os.Chmod(filepath.Join(h.PluginDir, "x"), 0o644); err != nil {
				t.Fatal(err)
			}
			configure(t, h, p)
		}, ReasonPluginNotFound},
		{"socket type on a file", func(t *testing.T, h *Host) {
			shell(t, h, "x", "true")
			configure(t, h, &AdmissionPlugin{Name: "x", Type: PluginTypeSocket})
		}, ReasonPluginNotFound},
		{"invalid config", func(t *testing.T, h *Host) {
			if err := os.WriteFile(filepath.Join(h.ConfigDir, "a.json"), []byte(`{"plugins":[{"name":"x","type":"carrier-pigeon"}]}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, ReasonConfigInvalid},
		{"unreachable grpc port", func(t *testing.T, h *Host) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := l.Addr().String()
			l.Close()
			if err := os.WriteFile(filepath.Join(h.PluginDir, "g"), []byte(addr), 0o644); err != nil {
				t.Fatal(err)
			}
			configure(t, h, &AdmissionPlugin{Name: "g", Type: PluginTypeGRPC})
		}, ReasonPluginFailed},
		{"remote grpc address", func(t *testing.T, h *Host) {
			if err := os.WriteFile(filepath.Join(h.PluginDir, "g"), []byte("10.1.2.3:80"), 0o644); err != nil {
				t.Fatal(err)
			}
			configure(t, h, &AdmissionPlugin{Name: "g", Type: PluginTypeGRPC})
		}, ReasonPluginNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			tc.setup(t, h)
			if got := h.Admit(context.Background(), testPod); got.Admit || got.Reason != tc.reason {
				t.Errorf("got %+v, want reason %s", got, tc.reason)
			}
			h.FailOpen = true
			if got := h.Admit(context.Background(), testPod); !got.Admit {
				t.Errorf("fail-open host rejected: %+v", got)
			}
		})
	}
}

func TestNoConfigurationAdmits(t *testing.T) {
	h := newHost(t)
	if got := h.Admit(context.Background(), testPod); !got.Admit {
		t.Errorf("got %+v", got)
	}
}

type grpcPlugin struct {
	pluginapi.UnimplementedPodAdmissionServer
	answer *pluginapi.AdmitResult
	delay  time.Duration
}

func (p *grpcPlugin) Admit(ctx context.Context, req *pluginapi.AdmitRequest) (*pluginapi.AdmitResult, error) {
	var pod corev1.Pod
	if err := json.Unmarshal(req.GetPod(), &pod); err != nil || pod.Name != testPod.Name {
		return &pluginapi.AdmitResult{Reason: "BadPod", Message: string(req.GetPod())}, nil
	}
	select {
	case <-time.After(p.delay):
	case <-ctx.Done():
	}
	return p.answer, nil
}

func TestGRPCPlugin(t *testing.T) {
	cases := []struct {
		name   string
		plugin *grpcPlugin
		want   AdmitResult
	}{
		{"admit", &grpcPlugin{answer: &pluginapi.AdmitResult{Admit: true}}, AdmitResult{Admit: true}},
		{"reject", &grpcPlugin{answer: &pluginapi.AdmitResult{Reason: "R", Message: "M"}}, AdmitResult{Reason: "R", Message: "M"}},
		{"reject without reason", &grpcPlugin{answer: &pluginapi.AdmitResult{}}, AdmitResult{Reason: ReasonPluginInvalidResponse}},
		{"timeout", &grpcPlugin{answer: &pluginapi.AdmitResult{Admit: true}, delay: 5 * time.Second}, AdmitResult{Reason: ReasonPluginTimeout}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := grpc.NewServer()
			pluginapi.RegisterPodAdmissionServer(srv, tc.plugin)
			go func() { _ = srv.Serve(l) }()
			t.Cleanup(srv.Stop)
			if err := os.WriteFile(filepath.Join(h.PluginDir, "g"), []byte(l.Addr().String()+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			configure(t, h, &AdmissionPlugin{Name: "g", Type: PluginTypeGRPC})
			got := h.Admit(context.Background(), testPod)
			if got.Admit != tc.want.Admit || got.Reason != tc.want.Reason || (tc.want.Message != "" && got.Message != tc.want.Message) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSocketPlugin(t *testing.T) {
	cases := []struct {
		name  string
		serve func(c net.Conn)
		want  AdmitResult
	}{
		{"reject", func(c net.Conn) {
			_, _ = io.ReadAll(c)
			_, _ = c.Write([]byte(`{"admit":false,"reason":"R","message":"M"}`))
		}, AdmitResult{Reason: "R", Message: "M"}},
		{"close without answer", func(c net.Conn) { _, _ = io.ReadAll(c) }, AdmitResult{Reason: ReasonPluginFailed}},
		{"garbage", func(c net.Conn) { _, _ = io.ReadAll(c); _, _ = c.Write([]byte("\x00\x01")) }, AdmitResult{Reason: ReasonPluginInvalidResponse}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			l, err := unixsock.Listen(filepath.Join(h.PluginDir, "s"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					tc.serve(c)
					c.Close()
				}
			}()
			configure(t, h, &AdmissionPlugin{Name: "s", Type: PluginTypeSocket})
			got := h.Admit(context.Background(), testPod)
			if got.Admit != tc.want.Admit || got.Reason != tc.want.Reason || (tc.want.Message != "" && got.Message != tc.want.Message) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestIgnoreRejectionsAdmitsRejectionsButNotFailures(t *testing.T) {
	h := newHost(t)
	h.IgnoreRejections = true
	configure(t, h, shell(t, h, "reject", `cat >/dev/null; echo '{"admit":false,"reason":"No","message":"m"}'`))
	if got := h.Admit(context.Background(), testPod); !got.Admit {
		t.Errorf("a host ignoring rejections rejected: %+v", got)
	}
	configure(t, h, shell(t, h, "crash", `kill -9 $$`))
	if got := h.Admit(context.Background(), testPod); got.Admit || got.Reason != ReasonPluginFailed {
		t.Errorf("a host ignoring rejections admitted a crash: %+v", got)
	}
}

func TestHostConfigRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadHostConfig(dir); err != ErrNoHostConfig {
		t.Errorf("no file: %v, want ErrNoHostConfig", err)
	}
	c := HostConfig{ConfigDir: "/c", PluginDir: "/p", Timeout: "250ms", FailOpen: true}
	data, err := EncodeHostConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, HostConfigFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadHostConfig(dir)
	if err != nil || got != c {
		t.Fatalf("read %+v (%v), want %+v", got, err, c)
	}
	h, err := got.Host()
	if err != nil || h.EffectiveTimeout() != 250*time.Millisecond || !h.FailOpen || h.ConfigDir != "/c" {
		t.Errorf("host %+v (%v)", h, err)
	}
	for _, bad := range []string{"soon", "-1s", "0s"} {
		if _, err := (HostConfig{ConfigDir: "/c", PluginDir: "/p", Timeout: bad}).Host(); err == nil {
			t.Errorf("timeout %q accepted", bad)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, HostConfigFile), []byte(`{"configDir":"/c"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadHostConfig(dir); err == nil || !strings.Contains(err.Error(), "required") {
		t.Errorf("missing pluginDir: %v", err)
	}
}
