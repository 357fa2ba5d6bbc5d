package image

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
)

// Media types of what Write produces.
const (
	MediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	MediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	MediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type containerConfig struct {
	User       string              `json:"User,omitempty"`
	Env        []string            `json:"Env,omitempty"`
	Entrypoint []string            `json:"Entrypoint,omitempty"`
	Cmd        []string            `json:"Cmd,omitempty"`
	WorkingDir string              `json:"WorkingDir,omitempty"`
	Labels     map[string]string   `json:"Labels,omitempty"`
	StopSignal string              `json:"StopSignal,omitempty"`
	Volumes    map[string]struct{} `json:"Volumes,omitempty"`
}

type imageConfig struct {
	Architecture string          `json:"architecture"`
	OS           string          `json:"os"`
	Config       containerConfig `json:"config"`
	RootFS       struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// Result says what Write wrote.
type Result struct {
	// Manifest is the image manifest's digest (what a registry reports).
	Manifest string
	Refs     []string
}

// WriteFile writes the image archive to path (via a temp file, renamed
// into place when complete).
func WriteFile(path string, opts ...Option) (Result, error) {
	var res Result
	err := atomicfile.WriteFunc(path, 0o644, func(w io.Writer) error {
		var err error
		res, err = Write(w, opts...)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// Write writes the image as one tar archive to w.
func Write(w io.Writer, opts ...Option) (Result, error) {
	s := defaultSpec()
	for _, o := range opts {
		o.apply(&s)
	}
	if len(s.layers) == 0 {
		return Result{}, errors.New("image: no layers")
	}
	for _, r := range s.refs {
		if !strings.Contains(r, ":") || strings.Contains(r, "@") {
			return Result{}, fmt.Errorf("image: ref %q needs a tag and no digest", r)
		}
	}
	tmp, err := rundir.Create("", rundir.ImagePrefix)
	if err != nil {
		return Result{}, err
	}
	defer rundir.Remove(tmp)

	var layers []blob
	for _, src := range s.layers {
		b, err := writeLayer(tmp, src)
		if err != nil {
			return Result{}, err
		}
		layers = append(layers, b)
	}
	cfg := imageConfig{Architecture: s.arch, OS: "linux", Config: containerConfig{
		User: s.user, Env: s.env, Entrypoint: s.entrypoint, Cmd: s.cmd, WorkingDir: s.workDir,
		StopSignal: s.stopSignal,
	}}
	if len(s.labels) > 0 {
		cfg.Config.Labels = s.labels
	}
	if len(s.volumes) > 0 {
		cfg.Config.Volumes = map[string]struct{}{}
		for _, v := range s.volumes {
			cfg.Config.Volumes[v] = struct{}{}
		}
	}
	cfg.RootFS.Type = "layers"
	manifest := struct {
		SchemaVersion int          `json:"schemaVersion"`
		MediaType     string       `json:"mediaType"`
		Config        descriptor   `json:"config"`
		Layers        []descriptor `json:"layers"`
	}{SchemaVersion: 2, MediaType: MediaTypeManifest}
	for _, l := range layers {
		cfg.RootFS.DiffIDs = append(cfg.RootFS.DiffIDs, l.digest) // uncompressed: digest is the diff ID
		manifest.Layers = append(manifest.Layers, descriptor{MediaType: MediaTypeLayer, Digest: l.digest, Size: l.size})
	}
	cfgJSON, _ := json.Marshal(cfg)
	manifest.Config = descriptor{MediaType: MediaTypeConfig, Digest: digestOf(cfgJSON), Size: int64(len(cfgJSON))}
	manifestJSON, _ := json.Marshal(manifest)
	manifestDesc := descriptor{MediaType: MediaTypeManifest, Digest: digestOf(manifestJSON), Size: int64(len(manifestJSON))}

	index := struct {
		SchemaVersion int          `json:"schemaVersion"`
		MediaType     string       `json:"mediaType"`
		Manifests     []descriptor `json:"manifests"`
	}{SchemaVersion: 2, MediaType: MediaTypeIndex}
	refs := append([]string(nil), s.refs...)
	sort.Strings(refs)
	for _, r := range refs {
		d := manifestDesc
		d.Annotations = map[string]string{
			"io.containerd.image.name":          normalizeRef(r),
			"org.opencontainers.image.ref.name": r[strings.LastIndex(r, ":")+1:],
		}
		index.Manifests = append(index.Manifests, d)
	}
	if len(refs) == 0 {
		index.Manifests = append(index.Manifests, manifestDesc)
	}
	indexJSON, _ := json.Marshal(index)
	// Docker's `docker load` reads manifest.json and finds the same blobs.
	dockerJSON, _ := json.Marshal([]struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{{Config: blobPath(manifest.Config.Digest), RepoTags: refs, Layers: layerPaths(layers)}})

	tw := tar.NewWriter(w)
	put := func(name string, data []byte) error {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data))}
		normalize(hdr)
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	for _, d := range []string{"blobs/", "blobs/sha256/"} {
		hdr := &tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755}
		normalize(hdr)
		if err := tw.WriteHeader(hdr); err != nil {
			return Result{}, err
		}
	}
	written := map[string]bool{}
	for _, l := range layers {
		if written[l.digest] {
			continue
		}
		written[l.digest] = true
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: blobPath(l.digest), Mode: 0o644, Size: l.size}
		normalize(hdr)
		if err := tw.WriteHeader(hdr); err != nil {
			return Result{}, err
		}
		if err := copyFile(tw, l.path); err != nil {
			return Result{}, err
		}
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{blobPath(manifest.Config.Digest), cfgJSON},
		{blobPath(manifestDesc.Digest), manifestJSON},
		{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{"index.json", indexJSON},
		{"manifest.json", dockerJSON},
	} {
		if err := put(f.name, f.data); err != nil {
			return Result{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return Result{}, err
	}
	return Result{Manifest: manifestDesc.Digest, Refs: refs}, nil
}

func digestOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

func blobPath(digest string) string { return "blobs/sha256/" + strings.TrimPrefix(digest, "sha256:") }

func layerPaths(layers []blob) []string {
	out := make([]string, len(layers))
	for i, l := range layers {
		out[i] = blobPath(l.digest)
	}
	return out
}

// normalizeRef spells ref as containerd and the kubelet look it up: Docker
// Hub's domain and library/ made explicit (Docker does this itself).
func normalizeRef(ref string) string {
	first, rest, found := strings.Cut(ref, "/")
	if !found {
		return "docker.io/library/" + ref
	}
	if !strings.ContainsAny(first, ".:") && first != "localhost" {
		return "docker.io/" + first + "/" + rest
	}
	return ref
}
