package hollow

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// rejectingHost is a plugin host whose one plugin rejects every pod.
func rejectingHost(t *testing.T) *nodeadmission.Host {
	t.Helper()
	dir := t.TempDir()
	h := &nodeadmission.Host{ConfigDir: filepath.Join(dir, "conf"), PluginDir: filepath.Join(dir, "bin")}
	for _, d := range []string{h.ConfigDir, h.PluginDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\ncat >/dev/null\necho '{\"admit\":false,\"reason\":\"NoWay\",\"message\":\"m\"}'\n"
	if err := os.WriteFile(filepath.Join(h.PluginDir, "no"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := &nodeadmission.PluginConfig{Plugins: []*nodeadmission.AdmissionPlugin{{Name: "no", Type: nodeadmission.PluginTypeShell}}}
	if err := writeConfig(h.ConfigDir, "c.json", cfg); err != nil {
		t.Fatal(err)
	}
	return h
}

// recordingHandler admits and counts its calls.
type recordingHandler struct{ calls int }

func (r *recordingHandler) handler() kubecompat.AdmitFunc {
	return func(context.Context, *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
		r.calls++
		return lifecycle.PodAdmitResult{Admit: true}
	}
}

func testPod() *v1.Pod { return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}} }

func TestPluginHandlerRejectsAddsFirstAndPassesResizes(t *testing.T) {
	ctx := context.Background()
	inner := &recordingHandler{}
	chain := kubecompat.Chain(PluginAdmitHandler(rejectingHost(t).Admit), inner.handler())

	r := kubecompat.Admit(ctx, chain, kubecompat.AdmitAttributes(testPod(), false))
	if r.Admit || r.Reason != "NoWay" || r.Message != "m" {
		t.Errorf("add: got %+v, want the plugin's rejection", r)
	}
	if inner.calls != 0 {
		t.Errorf("the handler after the plugin host was asked %d time(s) about a rejected pod", inner.calls)
	}
	resize := kubecompat.AdmitAttributes(testPod(), true)
	if resize == nil {
		t.Logf("Kubernetes %s does not mark resizes in admit attributes", kubecompat.Minor)
		return
	}
	if r := kubecompat.Admit(ctx, chain, resize); !r.Admit {
		t.Errorf("resize: got %+v, want it passed through", r)
	}
	if inner.calls != 1 {
		t.Errorf("the handler after the plugin host was asked %d time(s) about the resize, want 1", inner.calls)
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
