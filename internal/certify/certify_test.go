package certify

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseMetricsReadsGatesAndPlugins(t *testing.T) {
	body := `# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.
# TYPE kubernetes_feature_enabled gauge
kubernetes_feature_enabled{name="AdmissionWebhookMatchConditions",stage=""} 1
kubernetes_feature_enabled{name="MutatingAdmissionPolicy",stage="BETA"} 0
kubernetes_feature_enabled{name="ValidatingAdmissionPolicy",stage=""} 1
apiserver_admission_controller_admission_duration_seconds_bucket{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate",le="0.005"} 3
apiserver_admission_controller_admission_duration_seconds_count{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate"} 3
apiserver_admission_controller_admission_duration_seconds_count{name="MutatingAdmissionWebhook",operation="UPDATE",rejected="false",type="admit"} 9
apiserver_admission_webhook_admission_duration_seconds_count{name="marker.example.io",operation="CREATE",rejected="false",type="admit"} 1
`
	gates, plugins := parseMetrics([]byte(body))
	if got := sortedKeys(gates); !slices.Equal(got, []string{"AdmissionWebhookMatchConditions", "ValidatingAdmissionPolicy"}) {
		t.Errorf("gates %v", got)
	}
	if got := sortedKeys(plugins); !slices.Equal(got, []string{"MutatingAdmissionWebhook", "NamespaceLifecycle"}) {
		t.Errorf("plugins %v", got)
	}
}

func TestCertifyUnpackRefusesWhatABundleNeverHolds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []tar.Header
		want    string
	}{
		{"path", []tar.Header{{Name: "../x", Typeflag: tar.TypeReg}}, "not a plain file name"},
		{"dir", []tar.Header{{Name: "d", Typeflag: tar.TypeDir}}, "not a regular file"},
		{"link", []tar.Header{{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}}, "not a regular file"},
		{"twice", []tar.Header{{Name: "a", Typeflag: tar.TypeReg, Size: 1}, {Name: "a", Typeflag: tar.TypeReg, Size: 1}}, "appears twice"},
	} {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, h := range tc.entries {
			h.ModTime = time.Unix(0, 0)
			if err := tw.WriteHeader(&h); err != nil {
				t.Fatal(err)
			}
			if h.Size > 0 {
				_, _ = tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
			}
		}
		tw.Close()
		gz.Close()
		if _, err := Unpack(&buf); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestCertifyBundleIsReproducible(t *testing.T) {
	files := map[string][]byte{}
	for _, n := range Required {
		files[n] = []byte(n)
	}
	priv2, _, _ := GenerateKey()
	k2, err := ParsePrivateKey(priv2)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(files, k2, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Build(files, k2, time.Unix(1, 0))
	if !bytes.Equal(a, b) {
		t.Fatal("two bundles of the same files differ")
	}
	got, err := Unpack(bytes.NewReader(a))
	if err != nil || len(got) != len(files)+2 {
		t.Fatalf("unpacked %d files: %v", len(got), err)
	}
}
