package cli

import (
	"archive/tar"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImageWritesTheHarnessAsAnOCIArchive: `image -o` writes an OCI layout
// whose index names the image and whose manifest.json Docker reads.
func TestImageWritesTheHarnessAsAnOCIArchive(t *testing.T) {
	out := filepath.Join(t.TempDir(), "harness.tar")
	r := runCLI(t, "image", "-o", out, "--ref", "example.test/harness:v1")
	if r.code != 0 || !strings.Contains(r.stdout, "example.test/harness:v1") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(hdr.Name, "blobs/") {
			b, _ := io.ReadAll(tr)
			names[hdr.Name] = b
		}
	}
	var index struct {
		Manifests []struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(names["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Manifests) != 1 || index.Manifests[0].Annotations["io.containerd.image.name"] != "example.test/harness:v1" {
		t.Errorf("index.json: %s", names["index.json"])
	}
	if names["oci-layout"] == nil || names["manifest.json"] == nil {
		t.Errorf("archive holds %v", keys(names))
	}
	if r := runCLI(t, "image"); r.code != 2 || !strings.Contains(r.stderr, "--output") {
		t.Errorf("image without --output: exit %d, %s", r.code, r.stderr)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
