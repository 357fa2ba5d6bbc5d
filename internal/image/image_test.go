package image

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readArchive returns every regular file of an image archive by name.
func readArchive(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[hdr.Name] = b
		}
	}
}

func layerEntries(t *testing.T, layer []byte) map[string]*tar.Header {
	t.Helper()
	out := map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(layer))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out[hdr.Name] = hdr
	}
}

func TestWriteIsAValidOCIAndDockerArchive(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "hostname"), []byte("node\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(root, "etc", "hostname"), filepath.Join(root, "etc", "hostname2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("hostname", filepath.Join(root, "etc", "name")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := []Option{
		WithRef("registry.example/tool:v1"), WithRef("registry.example/tool:latest"),
		WithDirLayer(root),
		WithFiles(File{Path: "/usr/local/bin/tool", Source: bin, Mode: 0o755}, File{Path: "/etc/motd", Content: []byte("hi")}),
		WithEntrypoint("/usr/local/bin/tool"), WithEnv("A=b"), WithStopSignal("SIGRTMIN+3"), WithVolumes("/var"),
	}
	var first, second bytes.Buffer
	res, err := Write(&first, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&second, opts...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Error("the same inputs gave different archives")
	}
	files := readArchive(t, first.Bytes())
	// Every blob's name is its content's digest.
	for name, b := range files {
		if !strings.HasPrefix(name, "blobs/sha256/") {
			continue
		}
		sum := sha256.Sum256(b)
		if want := strings.TrimPrefix(name, "blobs/sha256/"); hex.EncodeToString(sum[:]) != want {
			t.Errorf("blob %s holds content with digest %x", name, sum)
		}
	}
	var index struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(files["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Manifests) != 2 || index.Manifests[0].Digest != res.Manifest ||
		index.Manifests[0].Annotations["io.containerd.image.name"] != "registry.example/tool:latest" ||
		index.Manifests[1].Annotations["org.opencontainers.image.ref.name"] != "v1" {
		t.Fatalf("index.json: %s", files["index.json"])
	}
	var manifest struct {
		Config descriptor   `json:"config"`
		Layers []descriptor `json:"layers"`
	}
	if err := json.Unmarshal(files[blobPath(res.Manifest)], &manifest); err != nil {
		t.Fatal(err)
	}
	var cfg imageConfig
	if err := json.Unmarshal(files[blobPath(manifest.Config.Digest)], &cfg); err != nil {
		t.Fatal(err)
	}
	if len(manifest.Layers) != 2 || len(cfg.RootFS.DiffIDs) != 2 || cfg.RootFS.DiffIDs[1] != manifest.Layers[1].Digest {
		t.Fatalf("manifest %+v, config rootfs %+v", manifest, cfg.RootFS)
	}
	if cfg.Config.StopSignal != "SIGRTMIN+3" || cfg.Config.Entrypoint[0] != "/usr/local/bin/tool" || cfg.OS != "linux" {
		t.Errorf("config: %+v", cfg.Config)
	}
	dir := layerEntries(t, files[blobPath(manifest.Layers[0].Digest)])
	if h := dir["etc/hostname2"]; h == nil || h.Typeflag != tar.TypeLink || h.Linkname != "etc/hostname" {
		t.Errorf("hard link not kept: %+v", h)
	}
	if h := dir["etc/name"]; h == nil || h.Typeflag != tar.TypeSymlink || h.Linkname != "hostname" {
		t.Errorf("symlink not kept: %+v", h)
	}
	fl := layerEntries(t, files[blobPath(manifest.Layers[1].Digest)])
	if h := fl["usr/local/bin/tool"]; h == nil || h.Mode != 0o755 || h.ModTime.Unix() != 0 {
		t.Errorf("file entry: %+v", h)
	}
	if fl["usr/local/bin/"] == nil || fl["usr/"] == nil {
		t.Errorf("parent directories missing: %v", fl)
	}
	var docker []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(files["manifest.json"], &docker); err != nil {
		t.Fatal(err)
	}
	if len(docker) != 1 || docker[0].Config != blobPath(manifest.Config.Digest) || len(docker[0].Layers) != 2 || len(docker[0].RepoTags) != 2 {
		t.Errorf("manifest.json: %s", files["manifest.json"])
	}
	if files["oci-layout"] == nil {
		t.Error("no oci-layout")
	}
}

func TestWriteRejectsBadInput(t *testing.T) {
	if _, err := Write(io.Discard, WithRef("a:b")); err == nil {
		t.Error("an image without layers was written")
	}
	if _, err := Write(io.Discard, WithRef("untagged"), WithFiles(File{Path: "/x"})); err == nil {
		t.Error("a ref without a tag was accepted")
	}
	if _, err := Write(io.Discard, WithFiles(File{Path: "relative"})); err == nil {
		t.Error("a relative path was accepted")
	}
}

func TestBinaryBringsItsLibraries(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Binary(exe, "/harness")
	if err != nil {
		t.Fatal(err)
	}
	if files[0].Path != "/harness" || files[0].Source != exe || files[0].Mode != 0o755 {
		t.Fatalf("first file %+v", files[0])
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, _ := f.ImportedLibraries()
	for _, lib := range libs {
		found := false
		for _, file := range files {
			found = found || filepath.Base(file.Path) == lib
		}
		if !found {
			t.Errorf("%s needs %s, not among %+v", exe, lib, files)
		}
	}
	if _, err := Binary(filepath.Join(t.TempDir(), "missing"), "/x"); err == nil {
		t.Error("a missing binary gave no error")
	}
}

func TestRefsAreNormalizedForContainerd(t *testing.T) {
	for in, want := range map[string]string{
		"busybox:1":                        "docker.io/library/busybox:1",
		"admission-conformance/harness:v1": "docker.io/admission-conformance/harness:v1",
		"registry.k8s.io/pause:3.10":       "registry.k8s.io/pause:3.10",
		"localhost/x:1":                    "localhost/x:1",
		"localhost:5000/x:1":               "localhost:5000/x:1",
	} {
		if got := normalizeRef(in); got != want {
			t.Errorf("normalizeRef(%q) = %q, want %q", in, got, want)
		}
	}
}
